#!/bin/sh
# Engine wrapper for Claude Code (Wrapper contract v1, docs/WRAPPER-CONTRACT.md).
#   claude.sh --model M [--effort low|medium|high|xhigh|max] [--resume SESSION] [--prompt-file P] < prompt
#   claude.sh --health | --list-models
# A turn execs `claude -p --output-format stream-json --verbose ...`: stdout is
# Claude Code's native stream-json (catalog "stream": "claude-stream-json").
# Headless turns cannot answer permission prompts, so they run with
# --dangerously-skip-permissions: give them a workspace you trust (as root,
# Claude Code also wants IS_SANDBOX=1).
here=$(CDPATH='' cd -- "$(dirname -- "$(readlink -f -- "$0" 2>/dev/null || printf '%s' "$0")")" && pwd) || exit 3
. "$here/_lib.sh"
parse_wrapper_args "$@"
load_env_file "${HARNESS_HOME:-$HOME/.harness}/env/CLAUDE.env"

case $wrapper_mode in
    health)
        engine=$(command -v claude 2>/dev/null) \
            || health_down "claude CLI not found on PATH (npm install -g @anthropic-ai/claude-code)"
        if auth=$(first_set_var ANTHROPIC_API_KEY CLAUDE_CODE_OAUTH_TOKEN ANTHROPIC_AUTH_TOKEN); then
            auth="$auth is set"
        elif [ -f "$HOME/.claude/.credentials.json" ]; then
            auth="logged in (~/.claude/.credentials.json)"
        else
            health_down "no credentials: set ANTHROPIC_API_KEY (harness-adapter set-secret claude ANTHROPIC_API_KEY -) or run 'claude login'"
        fi
        health_ok "claude at $engine; $auth"
        ;;
    list-models)
        # A static list: Claude Code has no offline way to list models.  Full
        # ids first, then the aliases the CLI also accepts.
        printf '%s\n' claude-opus-5 claude-sonnet-4-6 claude-sonnet-4-5 claude-opus-4-1 claude-haiku-4-5 sonnet opus haiku
        exit 0
        ;;
esac

check_turn_args
check_effort "low medium high xhigh max"
require_engine claude "npm install -g @anthropic-ai/claude-code"
read_prompt
set -- -p --output-format stream-json --verbose --model "$model" --dangerously-skip-permissions
[ -z "$effort" ] || set -- "$@" --effort "$effort"
[ -z "$resume" ] || set -- "$@" --resume "$resume"
exec claude "$@" "$prompt"
