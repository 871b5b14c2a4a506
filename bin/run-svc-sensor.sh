#!/usr/bin/env bash
# shellcheck disable=SC2310 # runtime_call and the is_ predicates are single commands used in conditions: set -e inside them would change nothing
# Starts the svc runtime sensor next to an application container (default) or on the host
# network (-H), after checking everything it needs; run with --help, or read help/sensor.md.
set -euo pipefail

# The sensor API key never reaches a trace (bash -x, which support asks for): tracing is off
# wherever the key is expanded, and back on afterwards when it was on.
tracing_was_on=false
pause_tracing() {
  { [[ $- != *x* ]] || tracing_was_on=true; set +x; } 2>/dev/null
}
resume_tracing() {
  { if $tracing_was_on; then tracing_was_on=false; set -x; fi; } 2>/dev/null
}

# unset cannot take the key out of /proc/<pid>/environ, which the kernel keeps as the process
# started: a key that came in the environment moves to a pipe on file descriptor 3, and the
# script starts again, without it in its environment.
pause_tracing
if [[ -n ${SVC_SENSOR_API_KEY+set} && -z ${SVC_SENSOR_INTERNAL_KEY_FD+set} && -f $0 && -r $0 ]]; then
  key_from_environment=$SVC_SENSOR_API_KEY
  unset SVC_SENSOR_API_KEY
  export SVC_SENSOR_INTERNAL_KEY_FD=3
  exec 3<<<"$key_from_environment"
  unset key_from_environment
  if $tracing_was_on; then
    exec "$BASH" -x "$0" "$@"
  fi
  exec "$BASH" "$0" "$@"
fi
sensor_api_key_from_environment=""
if [[ ${SVC_SENSOR_INTERNAL_KEY_FD:-} == 3 ]]; then
  # Up to the end (a key with a line break is refused later), less the here-string's newline.
  IFS= read -r -d '' sensor_api_key_from_environment <&3 || true
  sensor_api_key_from_environment=${sensor_api_key_from_environment%$'\n'}
  exec 3<&-
elif [[ -n ${SVC_SENSOR_API_KEY+set} ]]; then
  # Run from standard input ($0 is no file to start again): the key stays in this process's
  # environ, but still reaches no process it starts.
  sensor_api_key_from_environment=$SVC_SENSOR_API_KEY
fi
unset SVC_SENSOR_API_KEY SVC_SENSOR_INTERNAL_KEY_FD
# The management API key (of svc, the provider, the drift check) is kept only to refuse it as
# the sensor key, and kept from every process the launcher starts.
management_api_keys=()
management_api_key_settings=()
for management_variable in SVC_API_KEY TF_VAR_api_key; do
  if [[ -n ${!management_variable:-} ]]; then
    management_api_keys+=("${!management_variable}")
    management_api_key_settings+=("$management_variable")
  fi
  unset "$management_variable"
done
unset management_variable
resume_tracing

readonly SCRIPT_NAME="run-svc-sensor.sh"
readonly SCRIPT_VERSION="1.0.0"

# The spec names the default repository only as "<default sensor image repository>": the
# vendor's, which this launcher cannot know. It is a required setting: -i, else the host's site
# default in one of these variables (the second with -I). Nothing is built in, so nothing is
# ever pulled from a guessed registry.
readonly SITE_IMAGE_REPOSITORY_VARIABLE="SVC_SENSOR_IMAGE_REPOSITORY"
readonly SITE_INTERNAL_IMAGE_REPOSITORY_VARIABLE="SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY"
readonly DEFAULT_IMAGE_TAG="1.2.0"
readonly DEFAULT_STACK_NAME="SvcPrevent"
readonly DEFAULT_LOG_LEVEL="info"
readonly DEFAULT_TRACE_PATH="/sys"
# The sensor reads kernel tracing through sysfs; nothing outside it is mounted.
readonly TRACE_PATH_ROOT="/sys"
readonly LOG_LEVELS="trace debug info warn error"
# --systemd-unit: quadlet reads .container files from podman 4.4 on; older podman gets a plain
# .service. The key reaches the unit as this systemd credential, never in the unit file.
readonly QUADLET_PODMAN_VERSION="4.4"
readonly UNIT_CREDENTIAL_NAME="svc-sensor-api-key"
readonly UNIT_RESTART_SECONDS=5
# What the sensor reads under the trace path: tracefs (new and old place), the kernel's BTF type
# information (CO-RE eBPF programs) and the BPF filesystem. Each is a leaf filesystem mounted on
# its own, read-only; the rest of sysfs (and the cgroup hierarchy under it) is never mounted.
readonly TRACE_MOUNT_CANDIDATES="/sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/btf /sys/fs/bpf"
# CAP_BPF and CAP_PERFMON split the eBPF and perf privileges out of CAP_SYS_ADMIN in Linux 5.8.
readonly SPLIT_BPF_CAPABILITIES_KERNEL="5.8"
readonly DEFAULT_MEMORY_LIMIT="512m"
readonly DEFAULT_CPU_LIMIT="1"
readonly PIDS_LIMIT=256
readonly TMPFS_SIZE="16m"
readonly DEFAULT_LOG_MAX_SIZE="10m"
# Where the sensor finds its key: a read-only bind of a file on a tmpfs of the host.
readonly KEY_FILE_IN_CONTAINER="/run/secrets/svc-sensor-api-key"
readonly LOG_MAX_FILES=3
# Labels --ensure compares: a hash of everything the run command sets (and the image ID), and a
# salted hash of the key (never the key), "<salt>:<sha256 of salt and key>".
readonly CONFIG_LABEL="svc.sensor.config"
readonly KEY_FINGERPRINT_LABEL="svc.sensor.key-fingerprint"

# Same naming rule as the control plane construct: analyzer.<stack name lower case>.<domain>.
readonly ANALYZER_PORT=50051
readonly MAX_STACK_NAME_LENGTH=14
readonly SENSOR_NAME_PREFIX="svc-sensor-"
# The grace period of the graceful stop (--stop-timeout): SIGTERM, then SIGKILL after it. The
# limit keeps a typo from holding a fleet run (and a unit's stop) for hours.
readonly DEFAULT_STOP_GRACE_SECONDS=30
readonly MAX_STOP_GRACE_SECONDS=600
readonly RUNTIME_ANSWER_TIMEOUT_SECONDS=20
# Every other runtime call: a hung daemon must not hang a fleet run. A pull may take long; a stop
# gets its grace period on top.
readonly RUNTIME_CALL_TIMEOUT_SECONDS=60
readonly PULL_TIMEOUT_SECONDS=600
readonly DEFAULT_HEALTH_WAIT_SECONDS=10
readonly MAX_HEALTH_WAIT_SECONDS=600
readonly LOG_LINES_ON_FAILURE=20
# Capability numbers (linux/capability.h), to compare with CapEff in /proc/<pid>/status.
readonly -A CAPABILITY_BITS=([NET_ADMIN]=12 [NET_RAW]=13 [SYS_ADMIN]=21 [PERFMON]=38 [BPF]=39)
readonly MIN_CORES=2
readonly MIN_MEMORY_MB=300
readonly MIN_MEMORY_KB=$((MIN_MEMORY_MB * 1024))

# Test seam only: where host memory, routes and interfaces are read from.
readonly PROC_DIR="${SVC_SENSOR_PROC_DIR:-/proc}"
# Test seam only: the selinuxfs mount, whose "enforce" file says 1 when SELinux enforces.
readonly SELINUX_DIR="${SVC_SENSOR_SELINUX_DIR:-/sys/fs/selinux}"

readonly EXIT_UNEXPECTED=1
readonly EXIT_USAGE=2
readonly EXIT_NOT_LINUX=3
readonly EXIT_RUNTIME_MISSING=4
readonly EXIT_RUNTIME_NOT_ANSWERING=5
readonly EXIT_TOO_FEW_CORES=6
readonly EXIT_TOO_LITTLE_MEMORY=7
readonly EXIT_TRACE_PATH_MISSING=8
readonly EXIT_APP_CONTAINER_MISSING=9
readonly EXIT_APP_CONTAINER_NOT_RUNNING=10
readonly EXIT_SEVERAL_INTERFACES=11
readonly EXIT_INTERFACE_NOT_FOUND=12
readonly EXIT_NO_INTERFACE=13
readonly EXIT_API_KEY_MISSING=14
readonly EXIT_IMAGE_UNAVAILABLE=15
readonly EXIT_REPLACE_FAILED=16
readonly EXIT_START_FAILED=17
readonly EXIT_TRACE_PATH_OUTSIDE_SYS=18
readonly EXIT_NO_TRACE_FILESYSTEM=19
readonly EXIT_KEY_STORE_UNSAFE=20
readonly EXIT_SENSOR_UNHEALTHY=21
readonly EXIT_CAPABILITY_MISSING=22
readonly EXIT_LOCKED=23
readonly EXIT_ROOTLESS=24

tenant_id=""
domain=""
app_name=""
stack_name="$DEFAULT_STACK_NAME"
image_repository=""
image_tag="$DEFAULT_IMAGE_TAG"
image_tag_given=false
# A digest (sha256:<64 hex>) from -t sha256:... or -i repository@sha256:...; it pins the image.
image_digest=""
pull_policy="missing"
# --signature-policy FILE: podman's policy.json for the pull (podman only).
signature_policy=""
network_interface=""
log_level="$DEFAULT_LOG_LEVEL"
trace_path="$DEFAULT_TRACE_PATH"
host_mode=false
internal=false
dry_run=false
memory_limit="$DEFAULT_MEMORY_LIMIT"
cpu_limit="$DEFAULT_CPU_LIMIT"
log_max_size="$DEFAULT_LOG_MAX_SIZE"
health_wait_seconds="${SVC_SENSOR_HEALTH_WAIT:-$DEFAULT_HEALTH_WAIT_SECONDS}"
stop_grace_seconds=$DEFAULT_STOP_GRACE_SECONDS
allow_small_host=false

# Decided by main.
runtime=""
mode=""
network=""
sensor_name=""
chosen_interface=""
host_cores=""
memory_total_mb=""
image=""
analyzer_address=""
sensor_api_key=""
secret_env_file=""
# The key file for --key-delivery file: <secret directory>/<sensor name>/<random>/key.
secret_directory=""
key_directory=""
key_file=""
# Set once a sensor runs with key_directory, which then stays for its restarts.
key_directory_in_use=false
# The sensor being replaced, renamed aside and kept until the new one is healthy.
previous_name=""
previous_was_running=false
previous_set_aside=false
new_sensor_created=false
container_id=""
kernel_release=""
capabilities=()
trace_mounts=()
key_file_option=""
management_key_file_option=""
# --systemd-unit DIR: write a unit there instead of starting the sensor; --app-unit names the
# application's unit (default: the app container's PODMAN_SYSTEMD_UNIT label).
systemd_unit_directory=""
app_unit=""
unit_format=""
unit_file=""
unit_name=""
# Where the sensor key came from, for messages: --key-file, SVC_SENSOR_API_KEY or the terminal.
sensor_api_key_source=""
key_delivery="file"
output_format="text"
ensure=false
# What --output json reports: set as the run goes; an exit other than 0 reports "failed".
result_action=""
result_message=""
image_id=""
repository_digest=""
config_fingerprint=""
key_fingerprint=""

print_help() {
  cat <<EOF
Usage: $SCRIPT_NAME -n TENANT_ID -d DOMAIN -a APP_NAME [options]

Starts the svc runtime sensor (launcher version $SCRIPT_VERSION).
  Container mode (default): the sensor joins the network stack of the running application
    container APP_NAME and is named ${SENSOR_NAME_PREFIX}APP_NAME.
  Host mode (-H): the sensor listens on the host network, is named ${SENSOR_NAME_PREFIX}APP_NAME
    (APP_NAME identifies the instance) and uses the default-route interface.
A sensor of that name that is running is stopped first (grace period --stop-timeout, default ${DEFAULT_STOP_GRACE_SECONDS} s), kept until the new
one has stayed up for --health-wait seconds, then removed; if the new one fails, the old one is
started again.
The sensor reports to analyzer.<stack name in lower case>.<domain>:$ANALYZER_PORT over TLS.

Options (long options also take --option=value):
  -n, --tenant-id ID            Tenant ID (required)
  -d, --domain DOMAIN           DNS domain of the control plane installation (required)
  -a, --app-name NAME           Application container name, or instance identifier in host
                                mode (required)
  -s, --stack-name NAME         Stack name, when the default was not used (default: $DEFAULT_STACK_NAME;
                                another name has at most $MAX_STACK_NAME_LENGTH characters)
  -i, --image-repo REPOSITORY   Container image repository: the vendor's, a required setting
                                (default: \$$SITE_IMAGE_REPOSITORY_VARIABLE, with -I:
                                \$$SITE_INTERNAL_IMAGE_REPOSITORY_VARIABLE; none built in)
  -t, --image-tag TAG           Image tag (default: $DEFAULT_IMAGE_TAG), or a digest sha256:<64 hex>;
                                -i also takes REPOSITORY@sha256:<64 hex>
  -N, --network-interface NAME  Network interface to use (default: none, chosen automatically)
  -l, --sensor-log-level LEVEL  Sensor log level: ${LOG_LEVELS// /, } (default: $DEFAULT_LOG_LEVEL)
  -p, --trace-path PATH         Trace path, a directory at or under $TRACE_PATH_ROOT (default: $DEFAULT_TRACE_PATH);
                                '..' and symlinks are resolved; the tracing and BPF filesystems
                                under it are mounted read-only, nothing else
  -H, --host-mode               Listen on the host network (default: disabled)
  -I, --internal                Internal image access (default: disabled)
  -h, --help                    Print this help and exit

Launcher options (not in the spec):
  --dry-run                     Check everything, print the run command, change nothing (default: off)
  --allow-small-host            Start below $MIN_CORES cores / $MIN_MEMORY_MB MB (default: off), with a warning
                                instead of exit $EXIT_TOO_FEW_CORES or $EXIT_TOO_LITTLE_MEMORY
  --ensure                      Leave a running sensor alone when it already has this image ID,
                                these settings and this key (reported as unchanged); without it
                                a running sensor is always replaced, as the spec says (default: off)
  --output FORMAT               text or json (default: text); json: one JSON object on stdout
                                at the end (action started, replaced, unchanged, dry-run or
                                failed; exit code, container and image IDs, digest,
                                capabilities, interface), the messages on stderr
  --version                     Print the launcher version and exit (default: no)
  --memory-limit SIZE           Memory limit of the sensor container (default: $DEFAULT_MEMORY_LIMIT)
  --cpu-limit CPUS              CPU limit of the sensor container (default: $DEFAULT_CPU_LIMIT)
  --log-max-size SIZE           Rotate the sensor's log at SIZE, keeping $LOG_MAX_FILES files (default: $DEFAULT_LOG_MAX_SIZE);
                                0 leaves rotation to the runtime's log driver (e.g. journald)
  --pull POLICY                 always, missing or never: when to pull the image (default: missing;
                                always with --signature-policy)
  --signature-policy FILE       Verify the image against FILE (default: none, the runtime's own policy);
                                podman only: FILE is a containers-policy.json given to the pull,
                                which then happens on every run, before the running sensor is
                                touched; a rejected image is exit $EXIT_IMAGE_UNAVAILABLE
  --health-wait SECONDS         Seconds the new sensor must stay up (default: $DEFAULT_HEALTH_WAIT_SECONDS), without a
                                restart, before the previous one is removed
  --stop-timeout SECONDS        Grace period of the running sensor's stop, 1 to $MAX_STOP_GRACE_SECONDS (default: $DEFAULT_STOP_GRACE_SECONDS):
                                SIGTERM, then SIGKILL when it has not exited; also the stop
                                timeout of a --systemd-unit's container
  --key-file FILE               Read the sensor API key from FILE (default: none, the environment
                                or the terminal)
  --management-key-file FILE    Refuse a sensor key equal to the key in FILE (default: none;
                                the management API key in SVC_API_KEY or TF_VAR_api_key is
                                refused in any case)
  --systemd-unit DIR            Write a systemd unit into DIR instead of starting (default: none);
                                podman only: a quadlet .container with podman >= $QUADLET_PODMAN_VERSION,
                                else a .service; needs --key-file, which systemd loads at
                                every start (LoadCredential=)
  --app-unit UNIT               With --systemd-unit: the application's unit (default: the app
                                container's PODMAN_SYSTEMD_UNIT label; none in host mode),
                                which the sensor's unit starts after and stops with
  --key-delivery HOW            How the sensor gets the key (default: file): file, a read-only
                                file on a tmpfs; env, the container environment (opt-in, for
                                images that need it: inspect then shows the key)

Environment:
  SVC_SENSOR_IMAGE_REPOSITORY The vendor's sensor image repository for this host or site: the
                         default of -i/--image-repo (no default is built in).
  SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY The same with -I/--internal: the internal repository.
  SVC_SENSOR_API_KEY     Sensor API key, when --key-file is not given. When unset and stdin is a
                         terminal, it is asked for without echo. It never appears on a command
                         line or in the output, and the launcher drops it from its own environment.
  SVC_API_KEY            The management API key (of svc and the provider), when set: a sensor
                         key equal to it is refused; it reaches no process the launcher starts.
  TF_VAR_api_key         The same, as the cdktf app's variable.
  SVC_SENSOR_HEALTH_WAIT Default of --health-wait.
  SVC_SENSOR_SECRET_DIR  Directory on a tmpfs for the key files (default: /run/svc-sensor when /run
                         is a tmpfs, else /dev/shm/svc-sensor).
  SVC_CONTAINER_RUNTIME  Container runtime command (default: docker, else podman; docker
                         without an answering daemon falls back to podman, with a warning).
  TMPDIR                 Where the env file of --key-delivery env is created (default: /tmp).
  SVC_SENSOR_PROC_DIR    Test seam only: proc filesystem to read memory, routes and host
                         interfaces from (default: /proc).
  SVC_SENSOR_SELINUX_DIR Test seam only: selinuxfs, whose enforce file tells whether SELinux
                         enforces (default: /sys/fs/selinux).

Exit codes:
  0   sensor started and healthy, or left running unchanged (--ensure), or its unit written
      (--systemd-unit), or help, version or a dry run printed
  $EXIT_USAGE   invalid command line: unknown option, missing value, missing required option,
      invalid value
  $EXIT_NOT_LINUX   not Linux
  $EXIT_RUNTIME_MISSING   no container runtime found
  $EXIT_RUNTIME_NOT_ANSWERING   the container runtime does not answer
  $EXIT_TOO_FEW_CORES   fewer than $MIN_CORES cores
  $EXIT_TOO_LITTLE_MEMORY   less than $MIN_MEMORY_MB MB of memory (or MemTotal unreadable)
  $EXIT_TRACE_PATH_MISSING   trace path does not exist or is not a directory
  $EXIT_APP_CONTAINER_MISSING   application container does not exist
  $EXIT_APP_CONTAINER_NOT_RUNNING  application container is not running
  $EXIT_SEVERAL_INTERFACES  several interfaces and none chosen with -N (their names are printed)
  $EXIT_INTERFACE_NOT_FOUND  the -N interface does not exist there
  $EXIT_NO_INTERFACE  no usable interface found
  $EXIT_API_KEY_MISSING  no usable sensor API key
  $EXIT_IMAGE_UNAVAILABLE  the sensor image is neither local nor pullable
  $EXIT_REPLACE_FAILED  the existing sensor could not be set aside or stopped
  $EXIT_START_FAILED  the sensor container did not start
  $EXIT_TRACE_PATH_OUTSIDE_SYS  trace path resolves outside $TRACE_PATH_ROOT ('..' and symlinks followed)
  $EXIT_NO_TRACE_FILESYSTEM  no tracing or BPF filesystem at or under the trace path
  $EXIT_KEY_STORE_UNSAFE  the key directory is not on a tmpfs, not private, or cannot be created
  $EXIT_SENSOR_UNHEALTHY  the new sensor did not stay up (its last log lines are printed); the previous one is restored
  $EXIT_CAPABILITY_MISSING  the new sensor was not granted a capability; the previous one is restored
  $EXIT_LOCKED  another run of the launcher for the same sensor is in progress
  $EXIT_ROOTLESS  the runtime is rootless (podman run by a non-root user, or rootless docker):
      it cannot grant the eBPF capabilities the sensor needs
  1   unexpected failure of a command (its message is above)

The sensor container gets SVC_TENANT_ID, SVC_ANALYZER_ADDRESS, SVC_ANALYZER_TLS, SVC_LOG_LEVEL,
SVC_INTERFACE, SVC_TRACE_PATH, SVC_SENSOR_MODE and SVC_SENSOR_API_KEY_FILE (the key, read-only at
$KEY_FILE_IN_CONTAINER); help/sensor.md describes them.

Examples:
  $SCRIPT_NAME -n acme -d corp.example.com -a shop-web --key-file ~/sensor-key
  $SCRIPT_NAME --tenant-id=acme --domain=corp.example.com --app-name=web-01 -H -l debug
EOF
}

die() {
  local exit_code=$1 message=$2
  result_message=$message
  printf '%s: error: %s\n' "$SCRIPT_NAME" "$message" >&2
  exit "$exit_code"
}

usage_error() {
  result_message=$1
  printf '%s: error: %s\n' "$SCRIPT_NAME" "$1" >&2
  printf 'Run %s --help for the options.\n' "$SCRIPT_NAME" >&2
  exit "$EXIT_USAGE"
}

# Human text: stdout, or stderr when stdout carries the JSON result.
note() {
  if [[ $output_format == json ]]; then
    printf '%s\n' "$*" >&2
  else
    printf '%s\n' "$*"
  fi
}

# ---------------------------------------------------------------------------- command line

parse_arguments() {
  local argument option value has_inline_value
  while (($# > 0)); do
    argument=$1
    shift
    has_inline_value=false
    value=""
    option=$argument
    if [[ $argument == --*=* ]]; then
      option=${argument%%=*}
      value=${argument#*=}
      has_inline_value=true
    fi
    case $option in
      -h | --help | -H | --host-mode | -I | --internal | --version | --dry-run | --ensure | --allow-small-host)
        if $has_inline_value; then
          usage_error "option $option takes no value (got '$argument')"
        fi
        # shellcheck disable=SC2249 # the outer case admits only these flags
        case $option in
          -h | --help)
            output_format=text
            print_help
            exit 0
            ;;
          --version)
            output_format=text
            printf '%s %s\n' "$SCRIPT_NAME" "$SCRIPT_VERSION"
            exit 0
            ;;
          --dry-run) dry_run=true ;;
          --ensure) ensure=true ;;
          --allow-small-host) allow_small_host=true ;;
          -H | --host-mode) host_mode=true ;;
          -I | --internal) internal=true ;;
        esac
        ;;
      -n | --tenant-id | -d | --domain | -a | --app-name | -s | --stack-name | -i | --image-repo | \
        -t | --image-tag | -N | --network-interface | -l | --sensor-log-level | -p | --trace-path | \
        --memory-limit | --cpu-limit | --log-max-size | --key-file | --management-key-file | --systemd-unit | --app-unit | --signature-policy | --key-delivery | --health-wait | --stop-timeout | --pull | --output)
        if ! $has_inline_value; then
          # A following option is not taken as a value: "-n -d x" means -n lacks its value.
          if (($# == 0)) || [[ $1 == -* ]]; then
            usage_error "option $option needs a value (a value that starts with '-' must be given in the --long-option=VALUE form)"
          fi
          value=$1
          shift
        fi
        # shellcheck disable=SC2249 # the outer case admits only these options
        case $option in
          -n | --tenant-id) tenant_id=$value ;;
          -d | --domain) domain=$value ;;
          -a | --app-name) app_name=$value ;;
          -s | --stack-name) stack_name=$value ;;
          -i | --image-repo) image_repository=$value ;;
          -t | --image-tag)
            image_tag=$value
            image_tag_given=true
            ;;
          -N | --network-interface) network_interface=$value ;;
          -l | --sensor-log-level) log_level=$value ;;
          -p | --trace-path) trace_path=$value ;;
          --memory-limit) memory_limit=$value ;;
          --cpu-limit) cpu_limit=$value ;;
          --log-max-size) log_max_size=$value ;;
          --key-file) key_file_option=$value ;;
          --management-key-file) management_key_file_option=$value ;;
          --systemd-unit) systemd_unit_directory=$value ;;
          --app-unit) app_unit=$value ;;
          --key-delivery) key_delivery=$value ;;
          --health-wait) health_wait_seconds=$value ;;
          --stop-timeout) stop_grace_seconds=$value ;;
          --pull) pull_policy=$value ;;
          --signature-policy) signature_policy=$value ;;
          --output)
            output_format=$value
            if [[ $output_format != text && $output_format != json ]]; then
              output_format=text
              usage_error "invalid value '$value' for --output: use text or json"
            fi
            ;;
        esac
        ;;
      -*) usage_error "unknown option '$option'" ;;
      *) usage_error "unexpected argument '$argument': every value belongs to an option" ;;
    esac
  done
}

# Without -i, the site default: the vendor's repository is a required setting, refused here,
# before the runtime is touched, when the host sets none.
site_repository_variable=""
choose_site_image_repository() {
  site_repository_variable=$SITE_IMAGE_REPOSITORY_VARIABLE
  if $internal; then
    site_repository_variable=$SITE_INTERNAL_IMAGE_REPOSITORY_VARIABLE
  fi
  image_repository=${!site_repository_variable:-}
  if [[ -z $image_repository ]]; then
    local wanted="the vendor's sensor image repository"
    ! $internal || wanted="the internal sensor image repository (-I/--internal)"
    usage_error "no image repository: $wanted is a required setting (the spec leaves its default to the vendor, and none is built in); give it with -i/--image-repo REPOSITORY, or set $site_repository_variable for this host (e.g. in /etc/environment or the unit that runs the launcher)"
  fi
}

validate_options() {
  local missing=()
  [[ -n $tenant_id ]] || missing+=("-n/--tenant-id")
  [[ -n $domain ]] || missing+=("-d/--domain")
  [[ -n $app_name ]] || missing+=("-a/--app-name")
  if ((${#missing[@]} > 0)); then
    local joined
    joined=$(IFS=,; printf '%s' "${missing[*]}")
    usage_error "missing required option(s): ${joined//,/, }"
  fi

  # Values end up in the container's environment, one per line: no control characters.
  if [[ $tenant_id == *[[:cntrl:]]* ]]; then
    usage_error "invalid value for -n/--tenant-id: it contains a control character; give the tenant ID as shown in the web user interface"
  fi

  domain=${domain%.}
  domain=${domain,,}
  local label='[a-z0-9]([a-z0-9-]*[a-z0-9])?'
  if ! [[ $domain =~ ^${label}(\.${label})*$ ]]; then
    usage_error "invalid value '$domain' for -d/--domain: give the DNS domain of the control plane installation (the hosted zone name), e.g. corp.example.com"
  fi

  if ! [[ $app_name =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]]; then
    usage_error "invalid value '$app_name' for -a/--app-name: a container name starts with a letter or digit and has only letters, digits, '_', '.' and '-'"
  fi

  if ! [[ $stack_name =~ ^[A-Za-z][A-Za-z0-9-]*$ ]]; then
    usage_error "invalid value '$stack_name' for -s/--stack-name: a stack name starts with a letter and has only letters, digits and '-'"
  fi
  if [[ $stack_name != "$DEFAULT_STACK_NAME" ]] && ((${#stack_name} > MAX_STACK_NAME_LENGTH)); then
    usage_error "invalid value '$stack_name' for -s/--stack-name: a non-default stack name has at most $MAX_STACK_NAME_LENGTH characters (this one has ${#stack_name}); give the name the control plane was deployed with"
  fi

  local digest_pattern='^sha256:[0-9a-f]{64}$'
  if [[ $image_repository == *@* ]]; then
    image_digest=${image_repository#*@}
    image_repository=${image_repository%%@*}
    if ! [[ $image_digest =~ $digest_pattern ]]; then
      usage_error "invalid digest '$image_digest' in -i/--image-repo: give repository@sha256:<64 lower-case hex digits>"
    fi
    if $image_tag_given; then
      usage_error "-i/--image-repo names a digest (@$image_digest) and -t/--image-tag a tag ('$image_tag'): give one of them"
    fi
  fi
  if [[ $image_tag == sha256:* ]]; then
    if ! [[ $image_tag =~ $digest_pattern ]]; then
      usage_error "invalid value '$image_tag' for -t/--image-tag: a digest is sha256: and 64 lower-case hex digits"
    fi
    image_digest=$image_tag
  fi
  if [[ $pull_policy != always && $pull_policy != missing && $pull_policy != never ]]; then
    usage_error "invalid value '$pull_policy' for --pull: use always (pull every time, so a re-pushed tag is refreshed), missing (pull only when not local) or never"
  fi
  if [[ -n $signature_policy ]]; then
    if [[ $signature_policy == *[[:cntrl:]]* || ! -f $signature_policy || ! -r $signature_policy ]]; then
      usage_error "invalid value '$signature_policy' for --signature-policy: no readable file; give podman's signature policy (a containers-policy.json, e.g. /etc/containers/policy.json)"
    fi
    # podman checks a policy only when it pulls: a local copy was never checked against it.
    if [[ $pull_policy == never ]]; then
      usage_error "--signature-policy and --pull never cannot be combined: podman verifies signatures only when it pulls; leave --pull out (the image is then pulled and verified on every run)"
    fi
    pull_policy=always
  fi

  local repository_setting="-i/--image-repo"
  if [[ -z $image_repository ]]; then
    choose_site_image_repository
    repository_setting=$site_repository_variable
  fi
  if ! [[ $image_repository =~ ^[a-z0-9]+([._/:-]+[a-z0-9]+)*$ ]]; then
    usage_error "invalid value '$image_repository' for $repository_setting: give a repository such as registry.example.com/team/sensor (lower case, no tag)"
  fi
  # A ':' may only separate a registry host from its port; a tag belongs in -t.
  if [[ $image_repository == *:*:* || ($image_repository == *:* && ${image_repository#*:} != */*) ]]; then
    usage_error "invalid value '$image_repository' for $repository_setting: give the repository without a tag and the tag with -t/--image-tag"
  fi
  if [[ -z $image_digest ]] && ! [[ $image_tag =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]]; then
    usage_error "invalid value '$image_tag' for -t/--image-tag: a tag has up to 128 letters, digits, '_', '.' and '-', e.g. $DEFAULT_IMAGE_TAG"
  fi

  if [[ -n $network_interface ]] && ! [[ $network_interface =~ ^[^[:space:][:cntrl:]/:]{1,15}$ ]]; then
    usage_error "invalid value '$network_interface' for -N/--network-interface: an interface name has 1 to 15 characters without spaces, '/' or ':', e.g. eth0"
  fi

  # Word by word: a substring test would take 'info warn' for a level.
  local level level_known=false
  for level in $LOG_LEVELS; do
    [[ $log_level != "$level" ]] || level_known=true
  done
  if ! $level_known; then
    usage_error "invalid value '$log_level' for -l/--sensor-log-level: use one of ${LOG_LEVELS// /, }"
  fi

  if ! [[ $memory_limit =~ ^[1-9][0-9]*[kKmMgG]?$ ]]; then
    usage_error "invalid value '$memory_limit' for --memory-limit: give a size such as 512m or 1g (a number with an optional k, m or g)"
  fi
  if ! [[ $cpu_limit =~ ^[0-9]+(\.[0-9]{1,2})?$ && $cpu_limit =~ [1-9] ]]; then
    usage_error "invalid value '$cpu_limit' for --cpu-limit: give a number of CPUs greater than 0, e.g. 1 or 0.5"
  fi
  if ! [[ $log_max_size =~ ^(0|[1-9][0-9]*[kKmMgG]?)$ ]]; then
    usage_error "invalid value '$log_max_size' for --log-max-size: give a size such as 10m, or 0 to leave log rotation to the runtime's log driver"
  fi

  if ! [[ $health_wait_seconds =~ ^[0-9]{1,3}$ ]] || ((10#$health_wait_seconds > MAX_HEALTH_WAIT_SECONDS)); then
    usage_error "invalid value '$health_wait_seconds' for --health-wait (or SVC_SENSOR_HEALTH_WAIT): give the seconds the new sensor must stay up, 0 to $MAX_HEALTH_WAIT_SECONDS, e.g. $DEFAULT_HEALTH_WAIT_SECONDS"
  fi
  health_wait_seconds=$((10#$health_wait_seconds))
  # 0 would be a kill, not the graceful stop the spec asks for.
  if ! [[ $stop_grace_seconds =~ ^[0-9]{1,3}$ ]] || ((10#$stop_grace_seconds < 1 || 10#$stop_grace_seconds > MAX_STOP_GRACE_SECONDS)); then
    usage_error "invalid value '$stop_grace_seconds' for --stop-timeout: give the seconds the running sensor has to stop on SIGTERM before it is killed, 1 to $MAX_STOP_GRACE_SECONDS, e.g. $DEFAULT_STOP_GRACE_SECONDS"
  fi
  stop_grace_seconds=$((10#$stop_grace_seconds))

  if [[ $key_delivery != file && $key_delivery != env ]]; then
    usage_error "invalid value '$key_delivery' for --key-delivery: use file (the default: a read-only file on a tmpfs) or env (only for images that read the key from the environment)"
  fi
  if [[ -n $key_file_option && ! -f $key_file_option ]]; then
    usage_error "invalid value '$key_file_option' for --key-file: no such file; give the file that holds the sensor API key"
  fi
  if [[ -n $management_key_file_option && ! -f $management_key_file_option ]]; then
    usage_error "invalid value '$management_key_file_option' for --management-key-file: no such file; give the file that holds the management API key, or leave the option out"
  fi

  validate_systemd_unit_options

  if [[ $trace_path != /* || $trace_path == *[[:cntrl:]:,]* ]]; then
    usage_error "invalid value '$trace_path' for -p/--trace-path: give an absolute directory path without ':' or ',', e.g. $DEFAULT_TRACE_PATH"
  fi
}

# systemd reads the unit's paths and names as words: only plain characters, so nothing in them
# needs quoting or is taken for a specifier.
readonly UNIT_SAFE_PATH='^/[A-Za-z0-9._/@+-]+$'
validate_systemd_unit_options() {
  if [[ -n $app_unit && -z $systemd_unit_directory ]]; then
    usage_error "--app-unit '$app_unit' is only used with --systemd-unit DIR"
  fi
  [[ -n $systemd_unit_directory ]] || return 0
  if ! [[ $systemd_unit_directory =~ $UNIT_SAFE_PATH && -d $systemd_unit_directory ]]; then
    usage_error "invalid value '$systemd_unit_directory' for --systemd-unit: give an existing directory (absolute, letters, digits and ._/@+- only), e.g. /etc/containers/systemd for a quadlet or /etc/systemd/system"
  fi
  if [[ -z $key_file_option ]]; then
    usage_error "--systemd-unit needs --key-file FILE: systemd loads the sensor key from that file at every start of the unit (LoadCredential=), so it never stands in the unit file or an environment"
  fi
  if ! [[ $key_file_option =~ $UNIT_SAFE_PATH ]]; then
    usage_error "invalid value '$key_file_option' for --key-file with --systemd-unit: systemd loads it by this path, so give it absolute, with letters, digits and ._/@+- only, e.g. /etc/svc-sensor/sensor-key (mode 0600, owned by root)"
  fi
  if [[ $key_delivery == env ]]; then
    usage_error "--systemd-unit and --key-delivery env cannot be combined: the unit would hold the key in its environment; the unit delivers it as a file (LoadCredential=)"
  fi
  if $ensure; then
    usage_error "--systemd-unit and --ensure cannot be combined: the launcher writes the unit and starts nothing, so there is no running sensor to compare"
  fi
  if [[ -n $app_unit ]]; then
    [[ $app_unit == *.service ]] || app_unit+=".service"
    if ! [[ $app_unit =~ ^[A-Za-z0-9:_.@-]+\.service$ ]]; then
      usage_error "invalid value '$app_unit' for --app-unit: give the application's systemd unit, e.g. shop-web.service"
    fi
  fi
}

# ---------------------------------------------------------------------------- requirements

check_operating_system() {
  local system
  system=$(uname -s)
  if [[ $system != Linux ]]; then
    die "$EXIT_NOT_LINUX" "the sensor runs on Linux only, and this host reports '$system' (uname -s); run the launcher on the Linux instance that hosts the application"
  fi
}

# Only an executable counts (type -P): a builtin or a function exported by the caller's shell
# is no container runtime, and timeout could not run it anyway.
select_container_runtime() {
  if [[ -n ${SVC_CONTAINER_RUNTIME:-} ]]; then
    if ! type -P -- "$SVC_CONTAINER_RUNTIME" >/dev/null 2>&1; then
      die "$EXIT_RUNTIME_MISSING" "SVC_CONTAINER_RUNTIME='$SVC_CONTAINER_RUNTIME' is not a command on PATH; install it, or unset the variable to use docker or podman"
    fi
    runtime=$SVC_CONTAINER_RUNTIME
  elif type -P docker >/dev/null 2>&1; then
    runtime=docker
  elif type -P podman >/dev/null 2>&1; then
    runtime=podman
  else
    die "$EXIT_RUNTIME_MISSING" "no container runtime found: install docker or podman (a prerequisite of the sensor host), or name one in SVC_CONTAINER_RUNTIME"
  fi
  # A function of that name (exported by the caller) would shadow the executable in our calls.
  unset -f -- "$runtime"
}

# Whether `<runtime> info` answers; sets info_status and info_errors.
info_status=0
info_errors=""
probe_runtime() {
  info_status=0
  # --foreground keeps timeout in our process group, so Ctrl-C reaches a hung runtime at once.
  info_errors=$(timeout --foreground "$RUNTIME_ANSWER_TIMEOUT_SECONDS" "$1" info 2>&1 >/dev/null 9<&-) || info_status=$?
}

# A docker CLI without a daemon (podman-docker hosts, a stopped dockerd) falls back to podman
# when the runtime was chosen automatically and podman answers; the launcher says so.
check_runtime_answers() {
  local errors status
  probe_runtime "$runtime"
  if ((info_status != 0)) && [[ $runtime == docker && -z ${SVC_CONTAINER_RUNTIME:-} ]] && type -P podman >/dev/null 2>&1; then
    local docker_status=$info_status
    probe_runtime podman
    if ((info_status == 0)); then
      printf '%s: warning: docker does not answer (docker info: exit %s); using podman, which does (set SVC_CONTAINER_RUNTIME to choose)\n' "$SCRIPT_NAME" "$docker_status" >&2
      runtime=podman
      unset -f podman
      return 0
    fi
    probe_runtime docker
  fi
  status=$info_status
  errors=$info_errors
  if ((status == 124)); then
    die "$EXIT_RUNTIME_NOT_ANSWERING" "'$runtime info' did not answer within $RUNTIME_ANSWER_TIMEOUT_SECONDS s; check that the $runtime service is running"
  elif ((status != 0)); then
    die "$EXIT_RUNTIME_NOT_ANSWERING" "'$runtime info' failed (exit $status): ${errors:-no message}; start the $runtime service, or run as a user allowed to use it"
  fi
}

# Every runtime call after `info` goes through here: bounded, and in our process group
# (--foreground) so that Ctrl-C reaches it at once.
runtime_call() {
  local limit=$RUNTIME_CALL_TIMEOUT_SECONDS
  case $1 in
    pull) limit=$PULL_TIMEOUT_SECONDS ;;
    stop) limit=$((RUNTIME_CALL_TIMEOUT_SECONDS + stop_grace_seconds)) ;;
    *) ;;
  esac
  # The lock's descriptor stays with this process: a runtime (conmon) that inherited it
  # would hold the lock as long as the sensor runs.
  timeout --foreground "$limit" "$runtime" "$@" 9<&-
}

# One run per sensor name at a time: a lock on its directory in the key store, released when
# this process exits (also on SIGKILL).
acquire_lock() {
  local directory="$secret_directory/$sensor_name"
  if ! { [[ -d $directory ]] || mkdir -m 0700 -- "$directory"; } || ! exec 9<"$directory"; then
    die "$EXIT_UNEXPECTED" "cannot open '$directory' to lock it; check that '$secret_directory' is writable for this user"
  fi
  if ! flock --nonblock 9; then
    die "$EXIT_LOCKED" "another run of the launcher for $sensor_name is in progress (it holds the lock on $directory); wait for it to finish"
  fi
}

# Options only podman has. Only podman's pull takes a signature policy file; docker verifies with
# Docker Content Trust, configured in its own environment, not per pull.
check_podman_only_options() {
  if [[ -n $signature_policy && ${runtime##*/} != podman ]]; then
    die "$EXIT_USAGE" "--signature-policy needs podman, and the runtime is '$runtime': docker has no per-pull signature policy (use Docker Content Trust, DOCKER_CONTENT_TRUST=1, in docker's environment); leave --signature-policy out, or run with podman (SVC_CONTAINER_RUNTIME=podman)"
  fi
  # docker's daemon already restarts the sensor at boot (--restart unless-stopped).
  if [[ -n $systemd_unit_directory && ${runtime##*/} != podman ]]; then
    die "$EXIT_USAGE" "--systemd-unit needs podman, and the runtime is '$runtime': docker's daemon restarts the sensor itself (--restart unless-stopped, also after a reboot); run without --systemd-unit"
  fi
}

# A rootless runtime's capabilities belong to a user namespace: bpf() and perf_event_open()
# check CAP_BPF and CAP_PERFMON in the host's namespace, so the sensor could never load a program.
check_rootful_runtime() {
  local how=""
  if [[ $runtime == podman || $runtime == */podman ]] && ((EUID != 0)); then
    how="podman run by uid $EUID is rootless"
  elif [[ ${DOCKER_HOST:-} == unix:///run/user/* || ${DOCKER_HOST:-} == unix://"${XDG_RUNTIME_DIR:-/run/user}"/* ]]; then
    how="DOCKER_HOST=$DOCKER_HOST is a rootless docker daemon"
  elif [[ ${runtime##*/} == docker ]]; then
    # A docker context (docker context use, DOCKER_CONTEXT) can point at a rootless daemon's
    # socket with no variable set: the daemon itself says so in its security options.
    local security_options reached_through="the current docker context (docker context show)"
    security_options=$(runtime_call info --format '{{range .SecurityOptions}}{{.}} {{end}}' 2>/dev/null) || security_options=""
    [[ -z ${DOCKER_CONTEXT:-} ]] || reached_through="DOCKER_CONTEXT=$DOCKER_CONTEXT"
    [[ -z ${DOCKER_HOST:-} ]] || reached_through="DOCKER_HOST=$DOCKER_HOST"
    if [[ " $security_options " == *" name=rootless "* ]]; then
      how="the docker daemon reached through $reached_through is rootless (docker info lists the security option name=rootless)"
    fi
  fi
  if [[ -n $how ]]; then
    die "$EXIT_ROOTLESS" "$how: a rootless runtime cannot grant the sensor CAP_BPF and CAP_PERFMON in the host's user namespace, which loading eBPF programs needs; run the launcher as root with the rootful runtime (sudo)"
  fi
}

# Under an enforcing SELinux a confined container reads only content labelled for it, which the
# runtimes give with :z/:Z. The trace filesystems must not be relabelled (tracefs, bpffs and
# sysfs are the host's: podman and docker document label=disable for system paths), so the
# sensor runs with label separation disabled, and then reads its key file as it is.
selinux_enforcing=false
check_selinux() {
  local enforce=""
  if [[ -r $SELINUX_DIR/enforce ]]; then
    # selinuxfs writes no line break: read fails but has set the value.
    read -r enforce <"$SELINUX_DIR/enforce" || true
  fi
  if [[ $enforce == 1 ]]; then
    selinux_enforcing=true
    printf '%s: warning: SELinux enforces: the sensor runs with --security-opt label=disable, since the kernel tracing filesystems it reads must not be relabelled (:z/:Z)\n' "$SCRIPT_NAME" >&2
  fi
}

check_cores() {
  # nproc reports OMP_NUM_THREADS / OMP_THREAD_LIMIT instead of the processors when they are
  # set; those are the user's settings for OpenMP programs, not facts about the host.
  host_cores=$(
    unset OMP_NUM_THREADS OMP_THREAD_LIMIT
    nproc
  )
  if ! [[ $host_cores =~ ^[0-9]+$ ]] || ((host_cores < MIN_CORES)); then
    if $allow_small_host; then
      printf '%s: warning: the sensor host should have at least %s cores and this one has '"'"'%s'"'"' (nproc); starting anyway (--allow-small-host)\n' "$SCRIPT_NAME" "$MIN_CORES" "$host_cores" >&2
      return 0
    fi
    die "$EXIT_TOO_FEW_CORES" "the sensor host needs at least $MIN_CORES cores and this one has '$host_cores' (nproc); use a larger instance"
  fi
}

check_memory() {
  local meminfo="$PROC_DIR/meminfo" name value total_kb=""
  if [[ -r $meminfo ]]; then
    while read -r name value _; do
      if [[ $name == MemTotal: ]]; then
        total_kb=$value
        break
      fi
    done <"$meminfo"
  fi
  if ! [[ $total_kb =~ ^[0-9]+$ ]]; then
    die "$EXIT_TOO_LITTLE_MEMORY" "cannot read MemTotal from $meminfo, so the $MIN_MEMORY_MB MB memory requirement cannot be checked"
  fi
  memory_total_mb=$((total_kb / 1024))
  if ((total_kb < MIN_MEMORY_KB)) && $allow_small_host; then
    printf '%s: warning: the sensor host should have at least %s MB of memory and this one has %s MB; starting anyway (--allow-small-host)\n' "$SCRIPT_NAME" "$MIN_MEMORY_MB" "$memory_total_mb" >&2
  elif ((total_kb < MIN_MEMORY_KB)); then
    die "$EXIT_TOO_LITTLE_MEMORY" "the sensor host needs at least $MIN_MEMORY_MB MB of memory and this one has $memory_total_mb MB (MemTotal $total_kb kB); use a larger instance"
  fi
}

# Parts of the directory are mounted into the sensor, so only the path the kernel reaches
# counts: '-p /sys/../' or a symlink to / would hand the sensor the host's whole file system.
check_trace_path() {
  local given=$trace_path directory name to_enter last_component="" entered resolved
  if [[ ! -e $given ]]; then
    die "$EXIT_TRACE_PATH_MISSING" "trace path '$given' (-p/--trace-path) does not exist on this host; give an existing directory, default $DEFAULT_TRACE_PATH"
  elif [[ ! -d $given ]]; then
    die "$EXIT_TRACE_PATH_MISSING" "trace path '$given' (-p/--trace-path) is not a directory; give an existing directory, default $DEFAULT_TRACE_PATH"
  fi

  # cd -P resolves '.', '..', repeated slashes and symlinks as the kernel does. The last
  # component is entered only when it must be (a symlink, '.' or '..'): kernel tracing
  # directories are often 0700, and the launcher may run as a non-root docker user.
  directory=${given%"${given##*[!/]}"}
  name=${directory##*/}
  if [[ -z $directory || $name == . || $name == .. || -L $directory ]]; then
    to_enter=${directory:-/}
  else
    to_enter=${directory%/*}
    to_enter=${to_enter:-/}
    last_component=$name
  fi
  if ! entered=$(cd -P -- "$to_enter" && pwd -P); then
    die "$EXIT_UNEXPECTED" "cannot resolve trace path '$given' (-p/--trace-path): this user may not enter '$to_enter' (see above); run the launcher as root, or give the path without symlinks, '.' or '..'"
  fi
  resolved=$entered
  if [[ -n $last_component ]]; then
    resolved="${entered%/}/$last_component"
  fi

  if [[ $resolved != "$TRACE_PATH_ROOT" && $resolved != "$TRACE_PATH_ROOT"/* ]]; then
    die "$EXIT_TRACE_PATH_OUTSIDE_SYS" "trace path '$given' (-p/--trace-path) resolves to '$resolved', outside $TRACE_PATH_ROOT; the sensor only needs kernel tracing under $TRACE_PATH_ROOT, e.g. $TRACE_PATH_ROOT or $TRACE_PATH_ROOT/kernel/tracing"
  fi
  # sysfs names may hold ':' (pci0000:00), which --volume would take for a separator.
  if [[ $resolved == *[[:cntrl:]:,]* ]]; then
    die "$EXIT_USAGE" "trace path '$given' (-p/--trace-path) resolves to '$resolved', which has ':' or ','; the runtime's --volume cannot mount that: give a directory whose resolved path has neither, e.g. $TRACE_PATH_ROOT/kernel/tracing"
  fi
  trace_path=$resolved
}

# Sets release_is_new_enough: whether a release (a kernel's 6.1.0-18-cloud-amd64, podman's 4.3.1) is at least
# major.minor; an unreadable release is not.
release_is_new_enough=false
compare_release() {
  local release=$1 wanted=$2 major minor
  release_is_new_enough=false
  [[ $release =~ ^([0-9]+)\.([0-9]+) ]] || return 0
  major=${BASH_REMATCH[1]}
  minor=${BASH_REMATCH[2]}
  if ((major > ${wanted%%.*} || (major == ${wanted%%.*} && minor >= ${wanted#*.}))); then
    release_is_new_enough=true
  fi
}

# Only what a network and eBPF sensor needs: loading eBPF programs and maps (BPF), reading perf
# events and kernel tracepoints (PERFMON), attaching programs to interfaces (NET_ADMIN) and raw
# packet capture (NET_RAW). Before 5.8 the kernel guards bpf() and perf_event_open() by
# SYS_ADMIN alone, so only there it is granted, and said.
choose_capabilities() {
  kernel_release=$(uname -r) || kernel_release=""
  compare_release "$kernel_release" "$SPLIT_BPF_CAPABILITIES_KERNEL"
  if $release_is_new_enough; then
    capabilities=(BPF PERFMON NET_ADMIN NET_RAW)
  else
    capabilities=(SYS_ADMIN NET_ADMIN NET_RAW)
    printf '%s: warning: kernel %s is older than %s (or unreadable), which has no CAP_BPF and CAP_PERFMON; the sensor gets CAP_SYS_ADMIN instead, which is close to host root: upgrade the kernel to drop it\n' \
      "$SCRIPT_NAME" "${kernel_release:-unknown}" "$SPLIT_BPF_CAPABILITIES_KERNEL" >&2
  fi
}

# The tracing and BPF filesystems at or under the trace path, each mounted on its own; a trace
# path inside one of them is mounted as it is.
choose_trace_mounts() {
  local candidate
  trace_mounts=()
  for candidate in $TRACE_MOUNT_CANDIDATES; do
    if [[ $trace_path == "$candidate" || $trace_path == "$candidate"/* ]]; then
      trace_mounts=("$trace_path")
      return
    fi
  done
  for candidate in $TRACE_MOUNT_CANDIDATES; do
    if [[ $candidate == "$trace_path"/* && -d $candidate ]]; then
      trace_mounts+=("$candidate")
    fi
  done
  if ((${#trace_mounts[@]} == 0)); then
    die "$EXIT_NO_TRACE_FILESYSTEM" "trace path '$trace_path' (-p/--trace-path) holds none of the filesystems the sensor reads (${TRACE_MOUNT_CANDIDATES// /, }); give $DEFAULT_TRACE_PATH or one of them, and check that tracefs or debugfs is mounted"
  fi
}

# ---------------------------------------------------------------------------- interfaces

# Sets device_interfaces to the non-loopback interface names of a /proc/net/dev table read
# from stdin ("  eth0: <counters>"; the kernel forbids ':' and spaces in interface names).
device_interfaces=()
read_device_interfaces() {
  local line name
  device_interfaces=()
  while IFS= read -r line; do
    [[ $line == *:* ]] || continue
    name=${line%%:*}
    name=${name//[[:space:]]/}
    [[ -n $name && $name != lo ]] || continue
    # Devices the ipip, sit, ip6_tunnel and gre modules add to every network namespace (Calico
    # hosts): no traffic of the application passes them unless configured.
    case $name in
      tunl0 | sit0 | ip6tnl0 | ip6_vti0 | ip_vti0 | gre0 | gretap0 | erspan0 | ip6gre0 | ip6gretap0) continue ;;
      *) ;;
    esac
    device_interfaces+=("$name")
  done
}

# Flag of an unreachable or prohibit route (no interface; Iface '*').
readonly ROUTE_FLAG_REJECT=0x0200

# Prints the interface of the IPv4 default route with the lowest metric, else the IPv6 one.
default_route_interface() {
  local best_interface="" best_metric=0
  local interface destination flags metric mask prefix_length
  if [[ -r $PROC_DIR/net/route ]]; then
    while read -r interface destination _ flags _ _ metric mask _; do
      [[ $destination == 00000000 && $mask == 00000000 && $metric =~ ^[0-9]+$ ]] || continue
      [[ $flags =~ ^[0-9a-fA-F]{1,8}$ ]] || continue
      (((16#$flags & ROUTE_FLAG_REJECT) == 0)) || continue
      [[ $interface != '*' ]] || continue
      if [[ -z $best_interface ]] || ((metric < best_metric)); then
        best_interface=$interface
        best_metric=$metric
      fi
    done <"$PROC_DIR/net/route"
  fi
  if [[ -z $best_interface && -r $PROC_DIR/net/ipv6_route ]]; then
    while read -r destination prefix_length _ _ _ metric _ _ _ interface; do
      [[ $destination =~ ^0{32}$ && $prefix_length == 00 && $interface != lo && $metric =~ ^[0-9a-fA-F]{1,8}$ ]] || continue
      if [[ -z $best_interface ]] || ((16#$metric < best_metric)); then
        best_interface=$interface
        best_metric=$((16#$metric))
      fi
    done <"$PROC_DIR/net/ipv6_route"
  fi
  printf '%s' "$best_interface"
}

# Sets named_interface_found: whether the -N interface is among the listed names. `ip link`
# shows a veth or VLAN as eth0@if12 (after the @: its peer or parent), so that form stands
# for eth0.
named_interface_found=false
match_named_interface() {
  local listed=" $* "
  named_interface_found=false
  if [[ $listed == *" $network_interface "* ]]; then
    named_interface_found=true
  elif [[ $network_interface == *@* && $listed == *" ${network_interface%%@*} "* ]]; then
    network_interface=${network_interface%%@*}
    named_interface_found=true
  fi
}

# The app container's PID and network mode, read by check_app_container.
app_pid=""
app_network_mode=""
check_app_container() {
  local status state
  if ! state=$(runtime_call container inspect --format '{{.State.Status}} {{.State.Pid}} {{.HostConfig.NetworkMode}}' "$app_name" 2>/dev/null); then
    die "$EXIT_APP_CONTAINER_MISSING" "no container named '$app_name' (-a/--app-name) exists ('$runtime container inspect' found none); give the name of the application container, or use -H for host mode"
  fi
  read -r status app_pid app_network_mode <<<"$state"
  if [[ $status != running ]]; then
    die "$EXIT_APP_CONTAINER_NOT_RUNNING" "application container '$app_name' (-a/--app-name) is '$status', not running; start it first ($runtime start $app_name), because the sensor joins its network stack"
  fi
}

# The interfaces are read from the host side, in the app's network namespace through its PID
# (/proc/<pid>/net/dev): nothing runs inside the application container. An app on the host
# network gets the host's default-route interface, as host mode does.
choose_container_interface() {
  local device_table="" interfaces
  if [[ $app_network_mode == host ]]; then
    note "Container $app_name uses the host network: the sensor watches the host's default-route interface"
    choose_host_interface
    return
  fi
  if [[ $app_pid =~ ^[1-9][0-9]*$ && -r $PROC_DIR/$app_pid/net/dev ]]; then
    device_table=$(<"$PROC_DIR/$app_pid/net/dev") || device_table=""
  fi
  if [[ -z $device_table ]]; then
    if [[ -n $network_interface ]]; then
      printf '%s: warning: cannot list the interfaces of container %s (no readable %s/%s/net/dev: a remote daemon, or another PID namespace); using -N %s unchecked\n' \
        "$SCRIPT_NAME" "$app_name" "$PROC_DIR" "${app_pid:-?}" "$network_interface" >&2
      chosen_interface=$network_interface
      return
    fi
    die "$EXIT_NO_INTERFACE" "cannot list the network interfaces of container '$app_name' (its process ${app_pid:-?} has no readable $PROC_DIR/${app_pid:-?}/net/dev on this host: a remote daemon, or another PID namespace); name the interface with -N/--network-interface"
  fi
  read_device_interfaces <<<"$device_table"
  interfaces=("${device_interfaces[@]}")

  if [[ -n $network_interface ]]; then
    match_named_interface "${interfaces[@]}"
    if ! $named_interface_found; then
      die "$EXIT_INTERFACE_NOT_FOUND" "interface '$network_interface' (-N/--network-interface) does not exist in container '$app_name'; its interfaces are: ${interfaces[*]:-none}"
    fi
    chosen_interface=$network_interface
  elif ((${#interfaces[@]} == 1)); then
    chosen_interface=${interfaces[0]}
  elif ((${#interfaces[@]} == 0)); then
    die "$EXIT_NO_INTERFACE" "container '$app_name' has no network interface besides loopback; attach it to a network first"
  else
    printf 'Container %s has several network interfaces:\n' "$app_name" >&2
    printf '  %s\n' "${interfaces[@]}" >&2
    die "$EXIT_SEVERAL_INTERFACES" "container '$app_name' has several network interfaces (${interfaces[*]}); choose one with -N/--network-interface, e.g. -N ${interfaces[0]}"
  fi
}

choose_host_interface() {
  local interfaces=()
  if [[ -n $network_interface ]]; then
    if [[ -r $PROC_DIR/net/dev ]]; then
      read_device_interfaces <"$PROC_DIR/net/dev"
      interfaces=("${device_interfaces[@]}")
    fi
    match_named_interface "${interfaces[@]}"
    if ! $named_interface_found; then
      die "$EXIT_INTERFACE_NOT_FOUND" "interface '$network_interface' (-N/--network-interface) does not exist on this host; its interfaces are: ${interfaces[*]:-none}"
    fi
    chosen_interface=$network_interface
    return
  fi
  chosen_interface=$(default_route_interface)
  if [[ -z $chosen_interface ]]; then
    die "$EXIT_NO_INTERFACE" "this host has no default route, so no interface can be chosen; name one with -N/--network-interface"
  fi
}

# ---------------------------------------------------------------------------- sensor API key

# Tracing stays off from here to the end: every line expands the key.
read_sensor_api_key() {
  pause_tracing
  if [[ -n $key_file_option ]]; then
    if ! [[ -r $key_file_option ]]; then
      die "$EXIT_API_KEY_MISSING" "cannot read the key file '$key_file_option' (--key-file); run as a user who may read it"
    fi
    # The whole file, less one final line break (the way editors save it).
    IFS= read -r -d '' sensor_api_key <"$key_file_option" || true
    sensor_api_key=${sensor_api_key%$'\n'}
    sensor_api_key_source="--key-file $key_file_option"
  elif [[ -n $sensor_api_key_from_environment ]]; then
    sensor_api_key=$sensor_api_key_from_environment
    sensor_api_key_source="SVC_SENSOR_API_KEY"
  elif [[ -t 0 ]]; then
    sensor_api_key_source="the terminal prompt"
    read -r -s -p "Sensor API key (input hidden): " sensor_api_key || sensor_api_key=""
    printf '\n' >&2
  else
    die "$EXIT_API_KEY_MISSING" "no sensor API key: give --key-file, set SVC_SENSOR_API_KEY, or run from a terminal to be asked for it"
  fi
  if [[ -z $sensor_api_key ]]; then
    die "$EXIT_API_KEY_MISSING" "the sensor API key is empty; create a sensor API key in the web user interface and give it"
  fi
  if [[ $sensor_api_key == *[[:cntrl:]]* ]]; then
    die "$EXIT_API_KEY_MISSING" "the sensor API key contains a line break or another control character; give the key exactly as the web user interface shows it"
  fi
  refuse_management_api_key
  resume_tracing
}

# The spec gives neither key a shape, so a management API key pasted as the sensor key is
# recognised by comparison with the management keys this host has: the environment's, and the
# file named with --management-key-file. The message names the settings, never a key.
refuse_management_api_key() {
  local index management_key setting
  if [[ -n $management_key_file_option ]]; then
    if ! [[ -r $management_key_file_option ]]; then
      die "$EXIT_API_KEY_MISSING" "cannot read the management key file '$management_key_file_option' (--management-key-file); run as a user who may read it"
    fi
    IFS= read -r -d '' management_key <"$management_key_file_option" || true
    management_api_keys+=("${management_key%$'\n'}")
    management_api_key_settings+=("--management-key-file $management_key_file_option")
  fi
  for index in "${!management_api_keys[@]}"; do
    management_key=${management_api_keys[index]}
    setting=${management_api_key_settings[index]}
    if [[ -n $management_key && $sensor_api_key == "$management_key" ]]; then
      die "$EXIT_API_KEY_MISSING" "the sensor API key (from $sensor_api_key_source) is the management API key (the one in $setting): a sensor authenticates with a sensor API key, a different key type; create one in the web user interface (add sensor key) and give it instead"
    fi
  done
}

# The directory for key files: on a tmpfs, so a key never reaches a disk; owned by this user and
# closed to everyone else. /run is a tmpfs on systemd hosts; /dev/shm is one everywhere.
choose_secret_directory() {
  local directory=${SVC_SENSOR_SECRET_DIR:-} filesystem owner mode
  if [[ -z $directory ]]; then
    directory=/dev/shm/svc-sensor
    if [[ $(stat -f -c %T /run 2>/dev/null || true) == tmpfs ]]; then
      directory=/run/svc-sensor
    fi
  fi
  if [[ $directory != /* || $directory == *[[:cntrl:]:,]* ]]; then
    die "$EXIT_KEY_STORE_UNSAFE" "SVC_SENSOR_SECRET_DIR='$directory' is not an absolute path without ':' and ','; unset it to use /run/svc-sensor or /dev/shm/svc-sensor"
  fi
  if [[ ! -e $directory ]] && ! mkdir -m 0700 -- "$directory" 2>/dev/null; then
    die "$EXIT_KEY_STORE_UNSAFE" "cannot create the key directory '$directory' (SVC_SENSOR_SECRET_DIR); create it (mode 0700, on a tmpfs) or run as root"
  fi
  filesystem=$(stat -f -c %T -- "$directory" 2>/dev/null || true)
  owner=$(stat -c %u -- "$directory" 2>/dev/null || true)
  mode=$(stat -c %a -- "$directory" 2>/dev/null || true)
  if [[ -L $directory || ! -d $directory || $owner != "$EUID" || $mode != 700 ]]; then
    die "$EXIT_KEY_STORE_UNSAFE" "the key directory '$directory' must be a directory (not a symlink) owned by this user (uid $EUID) with mode 700; it is owner '$owner', mode '$mode'; remove it and run again"
  fi
  if [[ $filesystem != tmpfs && $filesystem != ramfs ]]; then
    die "$EXIT_KEY_STORE_UNSAFE" "the key directory '$directory' is on '$filesystem', not a tmpfs, so the key would reach a disk; set SVC_SENSOR_SECRET_DIR to a directory on a tmpfs"
  fi
  secret_directory=$directory
}

remove_key_directory() {
  if [[ -n $key_directory ]] && ! $key_directory_in_use; then
    rm -rf -- "$key_directory"
    key_directory=""
  fi
}

# The key file the sensor reads, mode 0600 (the sensor runs as root in its user namespace and
# owns it; without CAP_DAC_OVERRIDE nobody else in the container may read it). One directory
# per run, so the previous sensor keeps its own file until it is gone.
write_key_file() {
  local previous_umask sensor_directory="$secret_directory/$sensor_name"
  previous_umask=$(umask)
  umask 077
  if ! { [[ -d $sensor_directory ]] || mkdir -- "$sensor_directory"; } || ! key_directory=$(mktemp -d "$sensor_directory/XXXXXXXXXX"); then
    key_directory=""
    die "$EXIT_UNEXPECTED" "cannot create the key directory under '$sensor_directory'; check that '$secret_directory' is writable for this user"
  fi
  key_file="$key_directory/key"
  pause_tracing
  printf '%s' "$sensor_api_key" >"$key_file"
  resume_tracing
  umask "$previous_umask"
  # An image that runs as a numeric non-root user reads the file as its owner; a user name
  # cannot be resolved from here (it lives in the image's /etc/passwd).
  if [[ $image_user =~ ^([1-9][0-9]*)(:([0-9]+))?$ ]]; then
    if ! chown -- "${BASH_REMATCH[1]}${BASH_REMATCH[3]:+:${BASH_REMATCH[3]}}" "$key_file"; then
      die "$EXIT_UNEXPECTED" "cannot hand the key file to the image's user $image_user (chown failed, see above); run the launcher as root"
    fi
  elif [[ -n $image_user && $image_user != 0 && $image_user != root && $image_user != 0:* && $image_user != root:* ]]; then
    printf '%s: warning: the image runs as user %s, which the launcher cannot map to a uid: the sensor may not read its key file (owned by uid %s, mode 0600); use an image with a numeric USER\n' "$SCRIPT_NAME" "$image_user" "$EUID" >&2
  fi
}

# Key directories of this sensor name other than the running one: those of sensors replaced,
# or of a run killed before it could clean up.
remove_stale_key_directories() {
  local directory
  for directory in "$secret_directory/$sensor_name"/*/; do
    directory=${directory%/}
    [[ -d $directory && $directory != "$key_directory" ]] || continue
    rm -rf -- "$directory"
  done
}

remove_secret_env_file() {
  if [[ -n $secret_env_file ]]; then
    rm -f -- "$secret_env_file"
    secret_env_file=""
  fi
}

# The key reaches the runtime through a private file, never through a command line that any
# user could read in the process list.
write_secret_env_file() {
  local previous_umask directory=${TMPDIR:-/tmp}
  previous_umask=$(umask)
  umask 077
  if ! secret_env_file=$(mktemp "$directory/svc-sensor-env.XXXXXXXXXX"); then
    secret_env_file=""
    die "$EXIT_UNEXPECTED" "cannot create the private key file in '$directory' (TMPDIR); set TMPDIR to a writable directory on this host, or unset it to use /tmp"
  fi
  umask "$previous_umask"
  pause_tracing
  printf 'SVC_SENSOR_API_KEY=%s\n' "$sensor_api_key" >"$secret_env_file"
  resume_tracing
}

# ---------------------------------------------------------------------------- support info

operating_system_name() {
  local line name=""
  if [[ -r /etc/os-release ]]; then
    while IFS= read -r line; do
      if [[ $line == PRETTY_NAME=* ]]; then
        name=${line#PRETTY_NAME=}
        name=${name#\"}
        name=${name%\"}
      fi
    done </etc/os-release
  fi
  printf '%s' "${name:-unknown}"
}

print_support_information() {
  local runtime_version operating_system kernel log_rotation="$log_max_size x $LOG_MAX_FILES files"
  [[ $log_max_size != 0 ]] || log_rotation="by the runtime's log driver"
  runtime_version=$(runtime_call --version 2>/dev/null) || runtime_version="unknown"
  operating_system=$(operating_system_name)
  kernel=${kernel_release:-unknown}
  kernel+=" $(uname -m || echo unknown)"
  note "Support information:"
  note "  launcher version:  $SCRIPT_VERSION"
  note "  operating system:  $operating_system"
  note "  kernel:            $kernel"
  note "  container runtime: $runtime ($runtime_version)"
  note "  mode:              $mode"
  note "  sensor container:  $sensor_name"
  note "  network:           $network"
  note "  interface:         $chosen_interface"
  note "  analyzer:          $analyzer_address (TLS)"
  note "  image:             $image"
  note "  log level:         $log_level"
  note "  trace path:        $trace_path"
  note "  mounted read-only: ${trace_mounts[*]}"
  note "  capabilities:      ${capabilities[*]} (all others dropped)"
  note "  limits:            memory $memory_limit, cpus $cpu_limit, pids $PIDS_LIMIT, log rotation $log_rotation"
  note "  resources:         $host_cores cores, $memory_total_mb MB memory"
}

# ---------------------------------------------------------------------------- result

# Sets json_text to a JSON string: what the runtime or the kernel named (an interface, an ID)
# may hold any character, so quotes, backslashes and control characters are escaped; an empty
# value is null.
json_text=""
to_json_string() {
  local text=$1 character code index
  if [[ -z $text ]]; then
    json_text=null
    # A bare return in a function the EXIT trap calls returns the exit code the trap began with.
    return 0
  fi
  json_text='"'
  for ((index = 0; index < ${#text}; index++)); do
    character=${text:index:1}
    case $character in
      '"' | "\\") json_text+="\\$character" ;;
      [[:cntrl:]])
        printf -v code '%d' "'$character"
        printf -v character '\\u%04x' "$code"
        json_text+=$character
        ;;
      *) json_text+=$character ;;
    esac
  done
  json_text+='"'
}

# The one JSON object of --output json, printed on every exit after the options were read.
print_json_result() {
  local exit_code=$1 action=$result_action capability separator="" object="{" name value
  if ((exit_code != 0)); then
    action=failed
  fi
  local -a fields=(
    action "$action" message "$result_message" sensor "$sensor_name" mode "$mode"
    container_id "$container_id" image "$image" image_id "$image_id" image_digest "$repository_digest"
    interface "$chosen_interface" unit_file "$unit_file" launcher_version "$SCRIPT_VERSION"
  )
  while ((${#fields[@]} > 0)); do
    name=${fields[0]}
    value=${fields[1]}
    fields=("${fields[@]:2}")
    to_json_string "$value"
    object+="\"$name\":$json_text,"
  done
  object+="\"exit_code\":$exit_code,\"capabilities\":["
  for capability in "${capabilities[@]}"; do
    to_json_string "$capability"
    object+="$separator$json_text"
    separator=","
  done
  printf '%s]}\n' "$object"
}

# ---------------------------------------------------------------------------- systemd unit

# One argument as a word of a systemd command line: in double quotes, \ and " escaped, % and $
# doubled so that systemd takes neither for a specifier or a variable.
systemd_word=""
to_systemd_word() {
  local text=$1
  text=${text//\\/\\\\}
  text=${text//\"/\\\"}
  text=${text//%/%%}
  text=${text//\$/\$\$}
  systemd_word="\"$text\""
}

# The sensor's arguments as systemd words; the key file is the unit's credential (%d is
# $CREDENTIALS_DIRECTORY, where systemd puts what LoadCredential= loaded).
readonly UNIT_KEY_FILE_PLACEHOLDER="<unit credential>"
unit_words=""
build_unit_words() {
  local argument key_volume
  key_file=$UNIT_KEY_FILE_PLACEHOLDER
  key_volume="$key_file:$KEY_FILE_IN_CONTAINER:ro"
  build_sensor_arguments
  unit_words="\"--stop-timeout\" \"$stop_grace_seconds\""
  for argument in "${sensor_arguments[@]:0:${#sensor_arguments[@]}-1}"; do
    if [[ $argument == "$key_volume" ]]; then
      systemd_word="\"%d/$UNIT_CREDENTIAL_NAME:$KEY_FILE_IN_CONTAINER:ro\""
    else
      to_systemd_word "$argument"
    fi
    unit_words+=" $systemd_word"
  done
}

# Container mode: the unit that runs the application container, from --app-unit, else from
# the PODMAN_SYSTEMD_UNIT label podman puts on a container a systemd unit started.
choose_app_unit() {
  local label
  [[ $mode == container && -z $app_unit ]] || return 0
  label=$(runtime_call container inspect --format '{{index .Config.Labels "PODMAN_SYSTEMD_UNIT"}}' "$app_name" 2>/dev/null) || label=""
  [[ $label != "<no value>" ]] || label=""
  if [[ -z $label ]]; then
    die "$EXIT_USAGE" "--systemd-unit in container mode needs the application's systemd unit, so that the sensor starts after it and stops with it: container '$app_name' has no PODMAN_SYSTEMD_UNIT label (no podman or quadlet unit started it); give the unit with --app-unit UNIT"
  fi
  # A label is the runtime's answer: checked like --app-unit before it reaches a unit file.
  if ! [[ $label =~ ^[A-Za-z0-9:_.@-]+\.service$ ]]; then
    die "$EXIT_USAGE" "container '$app_name' names its unit '$label' (label PODMAN_SYSTEMD_UNIT), which is not a plain .service name; give the application's unit with --app-unit UNIT"
  fi
  app_unit=$label
}

# The unit's text (quadlet .container or plain .service), in unit_text.
unit_text=""
compose_unit_text() {
  local podman_path=$1 dependencies install_target
  if [[ -n $app_unit ]]; then
    dependencies="BindsTo=$app_unit"$'\n'"After=$app_unit"
    install_target=$app_unit
  else
    dependencies="Wants=network-online.target"$'\n'"After=network-online.target"
    install_target=multi-user.target
  fi
  build_unit_words
  unit_text="# Written by $SCRIPT_NAME $SCRIPT_VERSION (--systemd-unit); run the launcher again to change it.
# The sensor API key is not in this file: systemd loads it from $key_file_option at every start.
[Unit]
Description=svc runtime sensor $sensor_name
$dependencies
"
  if [[ $unit_format == quadlet ]]; then
    unit_text+="
[Container]
ContainerName=$sensor_name
Image=$image
PodmanArgs=$unit_words
"
  fi
  unit_text+="
[Service]
LoadCredential=$UNIT_CREDENTIAL_NAME:$key_file_option
Restart=on-failure
RestartSec=$UNIT_RESTART_SECONDS
TimeoutStopSec=$((stop_grace_seconds + RUNTIME_CALL_TIMEOUT_SECONDS))
"
  if [[ $unit_format == service ]]; then
    to_systemd_word "$image"
    unit_text+="Environment=PODMAN_SYSTEMD_UNIT=%n
Type=notify
NotifyAccess=all
ExecStartPre=/bin/rm -f %t/%n.ctr-id
ExecStart=$podman_path run --cidfile=%t/%n.ctr-id --cgroups=no-conmon --rm --sdnotify=conmon --replace --detach --name $sensor_name $unit_words $systemd_word
ExecStop=$podman_path stop --ignore -t $stop_grace_seconds --cidfile=%t/%n.ctr-id
ExecStopPost=$podman_path rm -f --ignore -t 10 --cidfile=%t/%n.ctr-id
"
  fi
  unit_text+="
[Install]
WantedBy=$install_target
"
}

# --systemd-unit: the sensor as a systemd unit (quadlet where podman has it), which starts it at
# boot after the application's unit and stops it with that unit. Nothing is started here.
write_systemd_unit() {
  local podman_path version temporary_file key_mode
  podman_path=$(type -P -- "$runtime")
  if ! [[ $podman_path =~ $UNIT_SAFE_PATH ]]; then
    die "$EXIT_USAGE" "podman is at '$podman_path', a path a unit file cannot name as it is; install podman in /usr/bin"
  fi
  version=$(runtime_call version --format '{{.Client.Version}}' 2>/dev/null) || version=""
  compare_release "$version" "$QUADLET_PODMAN_VERSION"
  unit_format=service
  if $release_is_new_enough; then
    unit_format=quadlet
  fi
  # The key file stays on this host for every start of the unit: only its owner may read it.
  key_mode=$(stat -c %a -- "$key_file_option" 2>/dev/null || true)
  if [[ $key_mode =~ ^[0-7]*[0-7]([1-7][0-7]|[0-7][1-7])$ ]]; then
    printf '%s: warning: the key file %s (--key-file) has mode %s: users other than its owner may read the sensor key; chmod 0600 it\n' "$SCRIPT_NAME" "$key_file_option" "$key_mode" >&2
  fi
  unit_name="$sensor_name.service"
  unit_file="$systemd_unit_directory/$sensor_name.$([[ $unit_format == quadlet ]] && echo container || echo service)"
  choose_app_unit
  compose_unit_text "$podman_path"

  if $dry_run; then
    result_action=dry-run
    note "Dry run: nothing was pulled or written. podman ${version:-of unknown version} would get $unit_file ($unit_format), for $unit_name:"
    note "$unit_text"
    return 0
  fi
  if ! temporary_file=$(mktemp "$systemd_unit_directory/.$sensor_name.XXXXXXXXXX") ||
    ! printf '%s' "$unit_text" >"$temporary_file" || ! chmod 0644 -- "$temporary_file" || ! mv -f -- "$temporary_file" "$unit_file"; then
    [[ -z ${temporary_file:-} ]] || rm -f -- "$temporary_file"
    die "$EXIT_UNEXPECTED" "cannot write the unit '$unit_file' (--systemd-unit, see above); check that this user may write to '$systemd_unit_directory'"
  fi
  result_action=unit-written
  note "Wrote $unit_file: the $unit_format unit $unit_name (podman ${version:-of unknown version}). The sensor was not started; start it with:"
  if [[ $unit_format == quadlet ]]; then
    note "  systemctl daemon-reload && systemctl start $unit_name    (quadlet enables it through its [Install] section)"
  else
    note "  systemctl daemon-reload && systemctl enable --now $unit_name"
  fi
  if runtime_call container inspect --format '{{.State.Status}}' "$sensor_name" >/dev/null 2>&1; then
    note "The unit replaces the sensor container $sensor_name that runs now when it starts (podman run --replace)."
  fi
}

# ---------------------------------------------------------------------------- start

ensure_image() {
  if [[ $pull_policy != always ]] && runtime_call image inspect "$image" >/dev/null 2>&1; then
    read_image_user
    return
  fi
  if [[ $pull_policy == never ]]; then
    die "$EXIT_IMAGE_UNAVAILABLE" "image '$image' is not available locally and --pull never forbids pulling it; load it first ($runtime pull $image), or use --pull missing"
  fi
  if [[ -n $signature_policy ]]; then
    note "Pulling $image, verified against the signature policy $signature_policy ..."
    if ! runtime_call pull --signature-policy "$signature_policy" "$image" >&2; then
      die "$EXIT_IMAGE_UNAVAILABLE" "image '$image' was not pulled: podman refused it under the signature policy '$signature_policy' (--signature-policy), or cannot reach it (see podman's message above); the running sensor was not touched"
    fi
    read_image_user
    return
  fi
  note "Pulling $image ..."
  if ! runtime_call pull "$image" >&2; then
    die "$EXIT_IMAGE_UNAVAILABLE" "image '$image' is not available locally and cannot be pulled; check -i/--image-repo and -t/--image-tag, the registry access of this host and, for -I/--internal, '$runtime login' to the internal registry"
  fi
  read_image_user
}

# The user the image runs as (USER), which must be able to read the key file; its ID; and the
# registry digest of this repository, when the image came from a registry.
image_user=""
# One call (each field ends in '|'): the ID, the user, then the repository digests.
readonly IMAGE_FACTS_FORMAT='{{.Id}}|{{.Config.User}}|{{range .RepoDigests}}{{.}}|{{end}}'
read_image_user() {
  local facts fields digest
  facts=$(runtime_call image inspect --format "$IMAGE_FACTS_FORMAT" "$image" 2>/dev/null) || facts=""
  IFS='|' read -r -a fields <<<"$facts"
  image_id=${fields[0]:-}
  image_user=${fields[1]:-}
  repository_digest=$image_digest
  for digest in "${fields[@]:2}"; do
    if [[ -z $repository_digest && $digest == "$image_repository@sha256:"* ]]; then
      repository_digest=${digest#*@}
    fi
  done
  [[ $image_id =~ ^(sha256:)?[0-9a-f]{64}$ ]] || image_id=""
}

# "<salt>:<sha256 of salt and key>": tells whether a sensor got this key without holding it.
# The key reaches sha256sum on a pipe from a builtin, never on a command line.
salted_key_hash() {
  local salt=$1 hash
  pause_tracing
  hash=$(printf '%s%s' "$salt" "$sensor_api_key" | sha256sum)
  resume_tracing
  printf '%s:%s' "$salt" "${hash%% *}"
}

new_salt() {
  local salt
  salt=$(head -c 16 /dev/urandom | sha256sum)
  printf '%s' "${salt:0:32}"
}

# The hash of the run command as it would be (the key file's per-run path left out) and the image
# ID: equal hashes, equal sensors.
compute_config_fingerprint() {
  local saved_key_file=$key_file saved_env_file=$secret_env_file hash
  key_file="<key file>"
  secret_env_file="<env file>"
  config_fingerprint=""
  build_run_arguments
  key_file=$saved_key_file
  secret_env_file=$saved_env_file
  hash=$(printf '%s\0' "$image_id" "${run_arguments[@]}" | sha256sum)
  config_fingerprint=${hash%% *}
}

# --ensure: whether the running sensor already is this one: running, same image ID, same
# settings, same key, and (container mode) in the network stack of the app container running now.
sensor_is_unchanged() {
  local state status running_image network_mode running_config running_key app_id
  [[ -n $image_id ]] || return 1
  state=$(runtime_call container inspect --format "{{.State.Status}} {{.Image}} {{.HostConfig.NetworkMode}} {{index .Config.Labels \"$CONFIG_LABEL\"}} {{index .Config.Labels \"$KEY_FINGERPRINT_LABEL\"}}" "$sensor_name" 2>/dev/null) || return 1
  read -r status running_image network_mode running_config running_key <<<"$state"
  [[ $status == running && $running_image == "$image_id" && $running_config == "$config_fingerprint" ]] || return 1
  [[ $running_key =~ ^([0-9a-f]{32}):[0-9a-f]{64}$ ]] || return 1
  local expected_key
  expected_key=$(salted_key_hash "${BASH_REMATCH[1]}") || return 1
  [[ $expected_key == "$running_key" ]] || return 1
  if [[ $mode == container ]]; then
    app_id=$(runtime_call container inspect --format '{{.Id}}' "$app_name" 2>/dev/null) || return 1
    [[ $network_mode == "container:$app_id" ]] || return 1
  fi
  container_id=$(runtime_call container inspect --format '{{.Id}}' "$sensor_name" 2>/dev/null) || container_id=""
  return 0
}

# Whether a container of that name exists and is a sensor of this sensor name (label), so that
# a container of another application's sensor (svc-sensor-<app>.previous) is never taken.
is_previous_sensor() {
  local owner
  owner=$(runtime_call container inspect --format '{{index .Config.Labels "svc.sensor.name"}}' "$previous_name" 2>/dev/null) || return 1
  [[ $owner == "$sensor_name" ]]
}

# A run killed while the previous sensor was set aside leaves it under previous_name: it is the
# last good sensor when no sensor of the name runs, else it is superseded.
recover_interrupted_replacement() {
  if ! is_previous_sensor; then
    return 0
  fi
  if runtime_call container inspect --format '{{.State.Status}}' "$sensor_name" >/dev/null 2>&1; then
    note "Removing $previous_name, left by an interrupted run ..."
    runtime_call rm --force "$previous_name" >/dev/null || true
  else
    note "Renaming $previous_name, left by an interrupted run, back to $sensor_name ..."
    runtime_call rename "$previous_name" "$sensor_name" >/dev/null ||
      die "$EXIT_REPLACE_FAILED" "could not rename '$previous_name' back to '$sensor_name'; do it by hand ($runtime rename $previous_name $sensor_name) and run again"
  fi
}

# The running sensor is stopped gracefully (as the spec says) but kept, renamed, until the new
# one is healthy: rollback_replacement brings it back.
set_previous_sensor_aside() {
  local status
  previous_name="$sensor_name.previous"
  recover_interrupted_replacement
  if ! status=$(runtime_call container inspect --format '{{.State.Status}}' "$sensor_name" 2>/dev/null); then
    return
  fi
  if ! runtime_call rename "$sensor_name" "$previous_name" >/dev/null; then
    die "$EXIT_REPLACE_FAILED" "could not rename the previous sensor '$sensor_name' to '$previous_name' to keep it until the new one is healthy; check '$runtime ps -a' and run again"
  fi
  previous_set_aside=true
  # Docker and podman name their states differently; only states known to be stopped skip the
  # graceful stop.
  case $status in
    created | exited | dead | stopped | configured) ;;
    *)
      previous_was_running=true
      note "Stopping the running sensor $sensor_name (grace period $stop_grace_seconds s; kept as $previous_name until the new one is healthy) ..."
      local stop_started=$SECONDS
      if ! runtime_call stop -t "$stop_grace_seconds" "$previous_name" >/dev/null; then
        die "$EXIT_REPLACE_FAILED" "could not stop the running sensor (now '$previous_name'); it is left running under its old name; stop it by hand ($runtime stop $sensor_name) and run again"
      fi
      # A stop that used the whole grace period ended in SIGKILL: say so, it may have lost data.
      if ((SECONDS - stop_started >= stop_grace_seconds)); then
        warn_if_killed_after_grace_period
      fi
      ;;
  esac
}

warn_if_killed_after_grace_period() {
  local exit_code
  exit_code=$(runtime_call container inspect --format '{{.State.ExitCode}}' "$previous_name" 2>/dev/null) || exit_code="unknown"
  if [[ $exit_code == 137 ]]; then
    printf '%s: warning: the previous sensor %s did not stop on SIGTERM within the %s s grace period and was killed (SIGKILL, exit code 137); check its log (%s logs %s) and its SIGTERM handling\n' \
      "$SCRIPT_NAME" "$sensor_name" "$stop_grace_seconds" "$runtime" "$previous_name" >&2
  elif [[ $exit_code == unknown ]]; then
    printf '%s: warning: stopping the previous sensor %s took the whole %s s grace period, so it was probably killed (SIGKILL) without a graceful stop\n' "$SCRIPT_NAME" "$sensor_name" "$stop_grace_seconds" >&2
  fi
}

# The new sensor failed, or the run was interrupted: remove the new container and bring the
# previous one back under its name, running if it was. Called from the EXIT trap too.
rollback_replacement() {
  if $new_sensor_created; then
    runtime_call rm --force "$sensor_name" >/dev/null 2>&1 || true
    new_sensor_created=false
  fi
  if ! $previous_set_aside; then
    return 0
  fi
  previous_set_aside=false
  if ! runtime_call rename "$previous_name" "$sensor_name" >/dev/null; then
    printf '%s: error: could not rename the previous sensor %s back to %s; do it by hand (%s rename %s %s; %s start %s)\n' \
      "$SCRIPT_NAME" "$previous_name" "$sensor_name" "$runtime" "$previous_name" "$sensor_name" "$runtime" "$sensor_name" >&2
    return 0
  fi
  if $previous_was_running; then
    if runtime_call start "$sensor_name" >/dev/null; then
      printf '%s: the previous sensor %s was started again\n' "$SCRIPT_NAME" "$sensor_name" >&2
    else
      printf '%s: error: could not start the previous sensor %s again; start it by hand (%s start %s)\n' "$SCRIPT_NAME" "$sensor_name" "$runtime" "$sensor_name" >&2
    fi
  else
    printf '%s: the previous sensor %s is back (stopped, as it was)\n' "$SCRIPT_NAME" "$sensor_name" >&2
  fi
}

remove_previous_sensor() {
  if ! $previous_set_aside; then
    return 0
  fi
  note "Removing the previous sensor container (as $previous_name) ..."
  if runtime_call rm --force "$previous_name" >/dev/null; then
    previous_set_aside=false
  else
    printf '%s: warning: could not remove the previous sensor container %s; remove it by hand (%s rm %s)\n' "$SCRIPT_NAME" "$previous_name" "$runtime" "$previous_name" >&2
    previous_set_aside=false
  fi
}

# What a run would do, with nothing changed: the run command with placeholders for the key's
# file (which holds no key here) and env file.
print_dry_run() {
  local argument line=""
  key_file="<key file, written at run time>"
  secret_env_file="<env file with SVC_SENSOR_API_KEY=<redacted>>"
  build_run_arguments
  secret_env_file=""
  for argument in "${run_arguments[@]}"; do
    line+=" $(printf '%q' "$argument")"
  done
  note "Dry run: nothing was pulled, stopped, removed or started. Image: $image (pull policy $pull_policy)."
  note "An existing $sensor_name would be stopped (grace period $stop_grace_seconds s) and kept until the new one is healthy; then:"
  note "  $runtime$line"
}

# A failed new sensor: its last log lines, then the previous sensor back, then the exit code.
fail_new_sensor() {
  local exit_code=$1 message=$2
  printf '%s: error: %s\n' "$SCRIPT_NAME" "$message" >&2
  printf 'Last %s log lines of %s:\n' "$LOG_LINES_ON_FAILURE" "$sensor_name" >&2
  runtime_call logs --tail "$LOG_LINES_ON_FAILURE" "$sensor_name" 2>&1 | sed 's/^/  | /' >&2 || true
  rollback_replacement
  exit "$exit_code"
}

# Sets effective_capabilities to the CapEff mask of a process, or "" when it cannot be read
# (another PID namespace, a remote daemon).
effective_capabilities=""
read_effective_capabilities() {
  local pid=$1 name value
  effective_capabilities=""
  [[ $pid =~ ^[1-9][0-9]*$ && -r $PROC_DIR/$pid/status ]] || return 0
  while read -r name value; do
    if [[ $name == CapEff: && $value =~ ^[0-9a-fA-F]{1,16}$ ]]; then
      effective_capabilities=$((16#$value))
    fi
  done <"$PROC_DIR/$pid/status"
}

# Healthy: running through the whole wait without a restart, its health check (if the image has
# one) passed, and every capability asked for is effective.
wait_until_healthy() {
  local state status restarts pid health="" waited=0 capability bit missing=()
  note "Waiting $health_wait_seconds s for $sensor_name to stay up ..."
  while :; do
    if ! state=$(runtime_call container inspect --format '{{.State.Status}} {{.RestartCount}} {{.State.Pid}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$sensor_name" 2>/dev/null); then
      fail_new_sensor "$EXIT_SENSOR_UNHEALTHY" "the new sensor '$sensor_name' is gone after ${waited} s"
    fi
    read -r status restarts pid health <<<"$state"
    if [[ $status != running || $restarts != 0 ]]; then
      fail_new_sensor "$EXIT_SENSOR_UNHEALTHY" "the new sensor '$sensor_name' did not stay up: after ${waited} s it is '$status' with $restarts restart(s); its log is below, the previous sensor (if any) is restored"
    fi
    if [[ $health == unhealthy ]]; then
      fail_new_sensor "$EXIT_SENSOR_UNHEALTHY" "the new sensor '$sensor_name' reports its health check as unhealthy after ${waited} s; the previous sensor (if any) is restored"
    fi
    if ((waited >= health_wait_seconds)) && [[ $health != starting ]]; then
      break
    fi
    if ((waited >= health_wait_seconds + MAX_HEALTH_WAIT_SECONDS)); then
      fail_new_sensor "$EXIT_SENSOR_UNHEALTHY" "the health check of the new sensor '$sensor_name' is still 'starting' after ${waited} s"
    fi
    sleep 1
    waited=$((waited + 1))
  done

  read_effective_capabilities "$pid"
  if [[ -z $effective_capabilities ]]; then
    printf '%s: warning: cannot read the capabilities of the sensor process (pid %s) from %s/%s/status; check them with: %s inspect %s\n' \
      "$SCRIPT_NAME" "${pid:-unknown}" "$PROC_DIR" "${pid:-?}" "$runtime" "$sensor_name" >&2
    return 0
  fi
  for capability in "${capabilities[@]}"; do
    bit=${CAPABILITY_BITS[$capability]}
    if (((effective_capabilities >> bit & 1) == 0)); then
      missing+=("$capability")
    fi
  done
  if ((${#missing[@]} > 0)); then
    fail_new_sensor "$EXIT_CAPABILITY_MISSING" "the sensor was not granted ${missing[*]} (the runtime dropped what this host or the image's user does not allow, e.g. a non-root image user); the previous sensor (if any) is restored"
  fi
}

# The launcher's run: the lifecycle (detached, named, restarted by the runtime), then the sensor.
run_arguments=()
build_run_arguments() {
  build_sensor_arguments
  run_arguments=(run --detach --name "$sensor_name" --restart unless-stopped "${sensor_arguments[@]}")
}

# What makes the sensor what it is: network, privileges, mounts, limits, key, settings, image.
# The one source of the launcher's run and of the --systemd-unit units, so they cannot drift.
sensor_arguments=()
build_sensor_arguments() {
  local capability mount
  sensor_arguments=(
    --network "$network"
    --cap-drop ALL
  )
  for capability in "${capabilities[@]}"; do
    sensor_arguments+=(--cap-add "$capability")
  done
  for mount in "${trace_mounts[@]}"; do
    sensor_arguments+=(--volume "$mount:$mount:ro")
  done
  if $selinux_enforcing; then
    sensor_arguments+=(--security-opt label=disable)
  fi
  sensor_arguments+=(
    --security-opt no-new-privileges
    --read-only
    --tmpfs "/tmp:rw,nosuid,nodev,noexec,size=$TMPFS_SIZE"
    --memory "$memory_limit"
    --cpus "$cpu_limit"
    --pids-limit "$PIDS_LIMIT"
  )
  if [[ $log_max_size != 0 ]]; then
    sensor_arguments+=(--log-opt "max-size=$log_max_size" --log-opt "max-file=$LOG_MAX_FILES")
  fi
  if [[ $key_delivery == file ]]; then
    sensor_arguments+=(
      --volume "$key_file:$KEY_FILE_IN_CONTAINER:ro"
      --env "SVC_SENSOR_API_KEY_FILE=$KEY_FILE_IN_CONTAINER"
    )
  else
    sensor_arguments+=(--env-file "$secret_env_file")
  fi
  sensor_arguments+=(
    --env "SVC_TENANT_ID=$tenant_id"
    --env "SVC_ANALYZER_ADDRESS=$analyzer_address"
    --env "SVC_ANALYZER_TLS=true"
    --env "SVC_LOG_LEVEL=$log_level"
    --env "SVC_INTERFACE=$chosen_interface"
    --env "SVC_TRACE_PATH=$trace_path"
    --env "SVC_SENSOR_MODE=$mode"
    --label "svc.sensor.launcher-version=$SCRIPT_VERSION"
    --label "svc.sensor.name=$sensor_name"
  )
  if [[ -n $config_fingerprint ]]; then
    sensor_arguments+=(--label "$CONFIG_LABEL=$config_fingerprint" --label "$KEY_FINGERPRINT_LABEL=$key_fingerprint")
  fi
  sensor_arguments+=("$image")
}

start_sensor() {
  build_run_arguments
  # A run that fails may still have created the container: the rollback removes it.
  new_sensor_created=true
  if ! container_id=$(runtime_call "${run_arguments[@]}"); then
    remove_secret_env_file
    printf '%s: error: the sensor container %s did not start (%s run failed, see above)\n' "$SCRIPT_NAME" "$sensor_name" "$runtime" >&2
    rollback_replacement
    exit "$EXIT_START_FAILED"
  fi
  remove_secret_env_file
}

# The new sensor is healthy: from here on it is the sensor, and its key file stays.
commit_replacement() {
  new_sensor_created=false
  if [[ $key_delivery == file ]]; then
    key_directory_in_use=true
  fi
  result_action=started
  if $previous_set_aside; then
    result_action=replaced
  fi
  remove_previous_sensor
  if [[ $key_delivery == file ]]; then
    remove_stale_key_directories
  fi
  image_id=$(runtime_call container inspect --format '{{.Image}}' "$sensor_name" 2>/dev/null) || image_id=""
  note "  container id:      $container_id"
  note "  image id:          ${image_id:-unknown}"
  note "  image digest:      ${repository_digest:-none (a local image)}"
  note "Sensor $sensor_name started; follow it with: $runtime logs -f $sensor_name"
}

main() {
  parse_arguments "$@"
  validate_options

  check_operating_system
  select_container_runtime
  check_runtime_answers
  check_podman_only_options
  check_rootful_runtime
  check_selinux
  check_cores
  check_memory
  check_trace_path
  choose_trace_mounts
  choose_capabilities

  sensor_name="$SENSOR_NAME_PREFIX$app_name"
  if $host_mode; then
    mode=host
    network=host
    choose_host_interface
  else
    mode=container
    network="container:$app_name"
    check_app_container
    choose_container_interface
  fi

  if [[ -n $image_digest ]]; then
    image="$image_repository@$image_digest"
  else
    image="$image_repository:$image_tag"
  fi
  analyzer_address="analyzer.${stack_name,,}.$domain:$ANALYZER_PORT"

  choose_secret_directory
  acquire_lock
  read_sensor_api_key
  print_support_information

  if [[ -n $systemd_unit_directory ]]; then
    # The image the unit names must be there (and verified) before the unit can start it.
    $dry_run || ensure_image
    write_systemd_unit
    exit 0
  fi

  if $dry_run; then
    result_action=dry-run
    print_dry_run
    exit 0
  fi

  # Pull and write the key file before touching the running sensor, so a wrong repository or
  # tag, or a key store that is not safe, leaves it alone.
  ensure_image
  compute_config_fingerprint
  if $ensure && sensor_is_unchanged; then
    result_action=unchanged
    note "Sensor $sensor_name already runs image $image_id with these settings and this key: left as it is (--ensure)"
    exit 0
  fi
  local salt
  salt=$(new_salt)
  key_fingerprint=$(salted_key_hash "$salt")
  if [[ $key_delivery == file ]]; then
    write_key_file
  else
    printf '%s: warning: --key-delivery env: the key becomes part of the container configuration, which every user allowed to run %s inspect can read\n' "$SCRIPT_NAME" "$runtime" >&2
    write_secret_env_file
  fi
  set_previous_sensor_aside
  start_sensor
  wait_until_healthy
  commit_replacement
}

# On every exit: an unfinished replacement is rolled back (the old sensor back, the new one
# gone) before the key files of this run are removed.
on_exit() {
  local exit_code=$?
  rollback_replacement
  remove_secret_env_file
  remove_key_directory
  if [[ $output_format == json ]]; then
    print_json_result "$exit_code"
  fi
}

trap on_exit EXIT
# Turn signals into an ordinary exit so the EXIT trap removes the key files.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

main "$@"
