# What the demos (scripts/demo.sh, scripts/demo_ha.sh) share; source it from the repository
# root.
#   demo_option ARGS...   when $1 is an option both take (--port N, --faults on|off,
#                         --duration S, --ready-file F, --no-build, --keep), sets it ($port,
#                         $faults, $duration, $ready_file, $build, $keep) and $took (the words
#                         it used); else returns 1
#   demo_build            unless --no-build: the dependencies and the build; then $bin and
#                         $gen, the absolute paths of ibwarden and ibw-labgen (IBW_BIN and
#                         IBW_LABGEN override them; the daemon runs from the lab directory)
#   say TEXT...           TEXT, after the time
#   demo_loop INJECT ALIVE
#     the fault schedule: set $started (SECONDS at the start) and the array schedule
#     ("AT|rest": AT seconds after the start). Once a second until --duration is over (0:
#     until Ctrl-C): when faults are on and the next entry is due, INJECT gets its rest
#     ("what|command" or so); then ALIVE must succeed (else exit 1).
port=8080 faults=on duration=0 ready_file="" build=1 keep=0

demo_option() {
  took=2
  case $1 in
    --port) port=$2 ;;
    --faults) faults=$2 ;;
    --duration) duration=$2 ;;
    --ready-file) ready_file=$2 ;;
    --no-build) build=0 took=1 ;;
    --keep) keep=1 took=1 ;;
    *) return 1 ;;
  esac
}

demo_build() {
  if ((build)); then
    scripts/install-deps.sh
    BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh >/dev/null
  fi
  bin=$(realpath -m "${IBW_BIN:-$root/${BUILD_DIR:-build}/cli/ibwarden}")
  gen=$(realpath -m "${IBW_LABGEN:-$root/${BUILD_DIR:-build}/tests/lab/ibw-labgen}")
}

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }

demo_loop() {
  local next=0 at rest
  while ((duration == 0 || SECONDS - started < duration)); do
    if [[ $faults == on ]] && ((next < ${#schedule[@]})); then
      IFS='|' read -r at rest <<<"${schedule[next]}"
      if ((SECONDS - started >= at)); then
        "$1" "$rest"
        next=$((next + 1))
        ((next == ${#schedule[@]})) && say "all faults injected; the dashboard stays up (Ctrl-C stops)"
      fi
    fi
    "$2" || exit 1
    sleep 1
  done
}
