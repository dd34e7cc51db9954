#!/bin/sh
# Engine wrapper for Codex (Wrapper contract v1, docs/WRAPPER-CONTRACT.md).
#   codex.sh --model M [--effort minimal|low|medium|high|xhigh] [--resume THREAD] [--prompt-file P] < prompt
#   codex.sh --health | --list-models
# A turn execs `codex exec --json ...` with the prompt on stdin (`-`): stdout
# is Codex's native JSONL (catalog "stream": "codex-json").  Headless turns
# cannot answer approval prompts, so they run with
# --dangerously-bypass-approvals-and-sandbox: give them a workspace you trust.
here=$(CDPATH='' cd -- "$(dirname -- "$(readlink -f -- "$0" 2>/dev/null || printf '%s' "$0")")" && pwd) || exit 3
. "$here/_lib.sh"
parse_wrapper_args "$@"
load_env_file "${HARNESS_HOME:-$HOME/.harness}/env/CODEX.env"

case $wrapper_mode in
    health)
        engine=$(command -v codex 2>/dev/null) \
            || health_down "codex CLI not found on PATH (npm install -g @openai/codex)"
        if auth=$(first_set_var OPENAI_API_KEY CODEX_API_KEY); then
            auth="$auth is set"
        elif [ -f "${CODEX_HOME:-$HOME/.codex}/auth.json" ]; then
            auth="logged in (${CODEX_HOME:-~/.codex}/auth.json)"
        else
            health_down "no credentials: set OPENAI_API_KEY (harness-adapter set-secret codex OPENAI_API_KEY -) or run 'codex login'"
        fi
        health_ok "codex at $engine; $auth"
        ;;
    list-models)
        # A static list: codex has no offline way to list models.
        printf '%s\n' gpt-5.6-sol gpt-5.5 gpt-5-codex gpt-5
        exit 0
        ;;
esac

check_turn_args
check_effort "minimal low medium high xhigh"
require_engine codex "npm install -g @openai/codex"
set -- exec --json --skip-git-repo-check -m "$model" --dangerously-bypass-approvals-and-sandbox
[ -z "$effort" ] || set -- "$@" -c "model_reasoning_effort=$effort"
[ -z "$resume" ] || set -- "$@" resume "$resume"
set -- "$@" -
if [ -n "$prompt_file" ]; then
    exec codex "$@" < "$prompt_file"
fi
exec codex "$@"
