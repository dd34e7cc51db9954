#!/bin/sh
# Engine wrapper for opencode (Wrapper contract v1, docs/WRAPPER-CONTRACT.md).
#   opencode.sh --model PROVIDER/MODEL [--effort VARIANT] [--resume SESSION] [--prompt-file P] < prompt
#   opencode.sh --health | --list-models
# A turn execs `opencode run --format json ...` with the prompt on stdin:
# stdout is opencode's native JSON events (catalog "stream": "opencode-json").
# --effort maps to opencode's --variant (provider-specific: high, max, minimal...).
here=$(CDPATH='' cd -- "$(dirname -- "$(readlink -f -- "$0" 2>/dev/null || printf '%s' "$0")")" && pwd) || exit 3
. "$here/_lib.sh"
parse_wrapper_args "$@"
load_env_file "${HARNESS_HOME:-$HOME/.harness}/env/OPENCODE.env"

case $wrapper_mode in
    health)
        engine=$(command -v opencode 2>/dev/null) \
            || health_down "opencode CLI not found on PATH (npm install -g opencode-ai)"
        if auth=$(first_set_var ANTHROPIC_API_KEY OPENAI_API_KEY OPENROUTER_API_KEY); then
            auth="$auth is set"
        elif [ -f "${XDG_DATA_HOME:-$HOME/.local/share}/opencode/auth.json" ]; then
            auth="logged in (opencode auth.json)"
        else
            health_down "no credentials: set a provider key (harness-adapter set-secret opencode ANTHROPIC_API_KEY -) or run 'opencode auth login'"
        fi
        health_ok "opencode at $engine; $auth"
        ;;
    list-models)
        # A static list (the curated one): `opencode models` may fetch from the network.
        printf '%s\n' anthropic/claude-sonnet-4-6 openai/gpt-5.6-sol anthropic/claude-sonnet-4-5 openai/gpt-5
        exit 0
        ;;
esac

check_turn_args
case $model in
    */*) ;;
    *) usage_error "opencode models are PROVIDER/MODEL, got: $model" ;;
esac
case $effort in
    -*|*[[:space:]]*) usage_error "invalid effort: $effort" ;;
esac
require_engine opencode "npm install -g opencode-ai"
set -- run --format json -m "$model"
[ -z "$effort" ] || set -- "$@" --variant "$effort"
[ -z "$resume" ] || set -- "$@" -s "$resume"
if [ -n "$prompt_file" ]; then
    exec opencode "$@" < "$prompt_file"
fi
exec opencode "$@"
