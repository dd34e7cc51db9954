#!/bin/sh
# Engine wrapper for pi (Wrapper contract v1, docs/WRAPPER-CONTRACT.md).
#   pi.sh --model PROVIDER/MODEL [--effort off|minimal|low|medium|high|xhigh] [--resume SESSION] [--prompt-file P] < prompt
#   pi.sh --health | --list-models
# A turn execs `pi -p --mode json ...`: stdout is pi's native JSON events
# (catalog "stream": "pi-json").  pi takes the prompt as an argument, so a
# prompt is limited to what one argument may hold (128 KiB on Linux).  Note
# that pi exits 0 after an API error; the stream says stopReason "error".
here=$(CDPATH='' cd -- "$(dirname -- "$(readlink -f -- "$0" 2>/dev/null || printf '%s' "$0")")" && pwd) || exit 3
. "$here/_lib.sh"
parse_wrapper_args "$@"
load_env_file "${HARNESS_HOME:-$HOME/.harness}/env/PI.env"

case $wrapper_mode in
    health)
        engine=$(command -v pi 2>/dev/null) \
            || health_down "pi CLI not found on PATH (npm install -g @mariozechner/pi-coding-agent)"
        if auth=$(first_set_var ANTHROPIC_API_KEY ANTHROPIC_OAUTH_TOKEN OPENAI_API_KEY OPENROUTER_API_KEY GEMINI_API_KEY); then
            auth="$auth is set"
        elif [ -f "${PI_CODING_AGENT_DIR:-$HOME/.pi/agent}/auth.json" ]; then
            auth="logged in (pi auth.json)"
        else
            health_down "no credentials: set a provider key (harness-adapter set-secret pi ANTHROPIC_API_KEY -) or log in with pi"
        fi
        health_ok "pi at $engine; $auth"
        ;;
    list-models)
        # A static list (the curated one); `pi --list-models` prints a table for people.
        printf '%s\n' anthropic/claude-sonnet-4-6 openai/gpt-5.6-sol anthropic/claude-sonnet-4-5 openai/gpt-5
        exit 0
        ;;
esac

check_turn_args
check_effort "off minimal low medium high xhigh"
require_engine pi "npm install -g @mariozechner/pi-coding-agent"
read_prompt
set -- -p --mode json --model "$model"
[ -z "$effort" ] || set -- "$@" --thinking "$effort"
[ -z "$resume" ] || set -- "$@" --session "$resume"
exec pi "$@" "$prompt"
