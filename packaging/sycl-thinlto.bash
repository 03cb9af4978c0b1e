# bash completion for sycl-thinlto (installed as share/bash-completion/completions/sycl-thinlto).
# Commands are completed from a fixed list; a command's options from its own --help, so the
# list never falls behind the tool; anything else completes as a file name.
_sycl_thinlto() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}
  local commands="link split inspect wrap wrapper register-host post-link distribute-local backend"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  case $cur in
  --*=*)
    # The value of --name=VALUE: a file or directory name.
    local prefix=${cur%%=*}= value=${cur#*=}
    COMPREPLY=($(compgen -f -- "$value"))
    COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
    compopt -o nospace 2>/dev/null
    ;;
  -*)
    local options
    options=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null |
      grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*=?' | tr -d ' ,' | sort -u)
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
    [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
    ;;
  *)
    COMPREPLY=($(compgen -f -- "$cur"))
    ;;
  esac
}
complete -F _sycl_thinlto sycl-thinlto
