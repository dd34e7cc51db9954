# Shared code of the shipped engine wrappers (POSIX sh).  Sourced, never run.
# The CLI shape every wrapper implements is docs/WRAPPER-CONTRACT.md (v1):
#   WRAPPER --model MODEL [--effort EFFORT] [--resume ID] [--prompt-file PATH] < prompt
#   WRAPPER --health          precondition check only; exit 0 healthy, 3 down
#   WRAPPER --list-models     one model id per line
# Exit codes: 0 done, 2 usage, 3 unavailable (engine missing, no credentials).

wrapper_name=${0##*/}
wrapper_mode=turn
model=
effort=
resume=
prompt_file=

wrapper_usage() {
    printf 'usage: %s --model MODEL [--effort EFFORT] [--resume ID] [--prompt-file PATH] < prompt\n' "$wrapper_name"
    printf '       %s --health | --list-models\n' "$wrapper_name"
}

usage_error() {
    printf '%s: %s\n' "$wrapper_name" "$1" >&2
    wrapper_usage >&2
    exit 2
}

json_escape() {
    printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr '\n\t\r' '   '
}

# --health answers: one JSON line on stdout and the contract's exit code.
health_ok() {
    printf '{"ok":true,"detail":"%s"}\n' "$(json_escape "$1")"
    exit 0
}

health_down() {
    printf '{"ok":false,"detail":"%s"}\n' "$(json_escape "$1")"
    exit 3
}

unavailable() {
    if [ "$wrapper_mode" = health ]; then
        health_down "$1"
    fi
    printf '%s: %s\n' "$wrapper_name" "$1" >&2
    exit 3
}

# The adapter's env file: $HARNESS_ENV_FILE (harness-adapter and the runner set
# it from the catalog's envFile), else the default given.  Sourced with set -a
# so the engine inherits the values; nothing here ever prints them.
load_env_file() {
    env_file=${HARNESS_ENV_FILE:-$1}
    case $env_file in
        */*) ;;
        *) env_file=./$env_file ;;  # '.' would search PATH for a bare name
    esac
    if [ -f "$env_file" ]; then
        [ -r "$env_file" ] || unavailable "cannot read the env file $env_file"
        set -a
        . "$env_file"
        set +a
    fi
}

parse_wrapper_args() {
    while [ $# -gt 0 ]; do
        case $1 in
            --health) wrapper_mode=health ;;
            --list-models) wrapper_mode=list-models ;;
            --model|--effort|--resume|--prompt-file)
                [ $# -ge 2 ] || usage_error "$1 needs a value"
                case $1 in
                    --model) model=$2 ;;
                    --effort) effort=$2 ;;
                    --resume) resume=$2 ;;
                    --prompt-file) prompt_file=$2 ;;
                esac
                shift
                ;;
            --model=*) model=${1#*=} ;;
            --effort=*) effort=${1#*=} ;;
            --resume=*) resume=${1#*=} ;;
            --prompt-file=*) prompt_file=${1#*=} ;;
            -h|--help) wrapper_usage; exit 0 ;;
            *) usage_error "unknown argument: $1" ;;
        esac
        shift
    done
}

# Turn-mode checks shared by every engine.  The model pin is mandatory: an
# unpinned engine silently runs whatever model it was last set to.
check_turn_args() {
    [ -n "$model" ] || usage_error "--model is required (the engine must be pinned)"
    case $model in
        -*|*[[:space:]]*) usage_error "invalid model: $model" ;;
    esac
    case $resume in
        -*|*[[:space:]]*) usage_error "invalid session id: $resume" ;;
    esac
    if [ -n "$prompt_file" ] && [ ! -r "$prompt_file" ]; then
        usage_error "cannot read the prompt file: $prompt_file"
    fi
}

check_effort() {
    [ -n "$effort" ] || return 0
    for allowed in $1; do
        [ "$effort" = "$allowed" ] && return 0
    done
    usage_error "unknown effort '$effort' (one of: $1)"
}

# For engines that take the prompt as an argument: read it whole.
read_prompt() {
    if [ -n "$prompt_file" ]; then
        prompt=$(cat -- "$prompt_file") || exit 2
    else
        prompt=$(cat) || exit 2
    fi
    [ -n "$prompt" ] || usage_error "empty prompt"
    case $prompt in
        -*) prompt=" $prompt" ;;  # never let a prompt be parsed as an option
    esac
}

require_engine() {
    command -v "$1" >/dev/null 2>&1 || unavailable "$1 CLI not found on PATH${2:+ ($2)}"
}

# The first of "$@" that is a non-empty environment variable, for health details.
first_set_var() {
    for name in "$@"; do
        eval "value=\${$name:-}"
        if [ -n "$value" ]; then
            printf '%s' "$name"
            return 0
        fi
    done
    return 1
}
