# Shared by Scripts/trait-matrix and Scripts/flag-experiment (sourced, not run).
#
# Reads the package's traits from `swift package dump-package` (JSON), so the scripts follow Package.swift's
# `compileOptions` table without a copy of it. Plain bash + POSIX awk (works with mawk): no python, no jq.
#
# After `load_package_traits SCRATCH`:
#   ALL_TRAITS          every trait except "default", sorted, space-separated
#   DEFAULT_TRAITS      the traits the default set turns on, transitively (e.g. ENABLE_SESSION's
#                       ENABLE_PREUPDATE_HOOK), sorted
#   NON_DEFAULT_TRAITS  ALL_TRAITS minus DEFAULT_TRAITS, sorted
#   TRAIT_ENABLES_<T>   not set; use trait_enables T

# Prints one line per trait of the dump-package JSON on stdin: NAME<TAB>ENABLED1,ENABLED2,...
# Only the top-level "traits" array counts (targets' settings have "traits" keys too, deeper down):
# depth is tracked by counting brackets outside string literals, so indentation does not matter.
parse_dump_package_traits() {
    awk '
    {
        line = $0
        bare = line
        gsub(/\\\\/, "", bare)                   # escaped backslashes, then escaped quotes,
        gsub(/\\"/, "", bare)                    # then whole strings: only structure is left
        gsub(/"[^"]*"/, "\"\"", bare)
        if (!in_traits && depth == 1 && line ~ /^[ \t]*"traits"[ \t]*:/) {
            in_traits = 1; traits_depth = depth
        }
        if (in_traits && depth == traits_depth + 2) {
            # Inside one trait object: "name" : "X", or a string of its enabledTraits list.
            if (line ~ /^[ \t]*"name"[ \t]*:/) {
                value = line
                sub(/^[ \t]*"name"[ \t]*:[ \t]*"/, "", value); sub(/".*$/, "", value)
                name = value
            }
            if (line ~ /^[ \t]*"enabledTraits"[ \t]*:/) in_enabled = 1
        } else if (in_traits && in_enabled && depth == traits_depth + 3 && line ~ /^[ \t]*"[^"]*"[ \t]*,?[ \t]*$/) {
            value = line
            sub(/^[ \t]*"/, "", value); sub(/".*$/, "", value)
            enabled = enabled (enabled == "" ? "" : ",") value
        }
        n = length(bare)
        for (i = 1; i <= n; i++) {
            c = substr(bare, i, 1)
            if (c == "{" || c == "[") depth++
            else if (c == "}" || c == "]") {
                depth--
                if (in_traits && in_enabled && depth == traits_depth + 2) in_enabled = 0
                if (in_traits && depth == traits_depth + 1 && c == "}") {
                    if (name != "") print name "\t" enabled
                    name = ""; enabled = ""; in_enabled = 0
                }
                if (in_traits && depth == traits_depth) in_traits = 0
            }
        }
    }'
}

# load_package_traits SCRATCH_PATH: fills ALL_TRAITS, DEFAULT_TRAITS, NON_DEFAULT_TRAITS, _TRAIT_TABLE.
load_package_traits() {
    local scratch=$1 json
    if ! json=$(swift package dump-package --scratch-path "$scratch" 2>"$scratch.dump-package.err"); then
        echo "error: 'swift package dump-package' failed; its output:" >&2
        cat "$scratch.dump-package.err" >&2
        exit 1
    fi
    rm -f "$scratch.dump-package.err"
    _TRAIT_TABLE=$(printf '%s\n' "$json" | parse_dump_package_traits)
    if [ -z "$_TRAIT_TABLE" ]; then
        echo "error: found no traits in 'swift package dump-package' output (does Package.swift still declare traits?)" >&2
        exit 1
    fi
    if ! printf '%s\n' "$_TRAIT_TABLE" | grep -q '^default	'; then
        echo "error: the package declares no default trait set in 'swift package dump-package' output" >&2
        exit 1
    fi
    ALL_TRAITS=$(printf '%s\n' "$_TRAIT_TABLE" | cut -f1 | grep -vx default | LC_ALL=C sort | tr '\n' ' ')
    ALL_TRAITS=${ALL_TRAITS% }
    # Closure of the default set under each trait's enabledTraits.
    DEFAULT_TRAITS=$(printf '%s\n' "$_TRAIT_TABLE" | awk -F'\t' '
        { enables[$1] = $2 }
        END {
            n = split(enables["default"], queue, ",")
            for (i = 1; i <= n; i++) on[queue[i]] = 1
            while (n > 0) {
                t = queue[n]; n--
                m = split(enables[t], more, ",")
                for (j = 1; j <= m; j++) if (!(more[j] in on)) { on[more[j]] = 1; queue[++n] = more[j] }
            }
            for (t in on) if (t != "") print t
        }' | LC_ALL=C sort | tr '\n' ' ')
    DEFAULT_TRAITS=${DEFAULT_TRAITS% }
    NON_DEFAULT_TRAITS=""
    local t
    for t in $ALL_TRAITS; do
        case " $DEFAULT_TRAITS " in *" $t "*) ;; *) NON_DEFAULT_TRAITS="$NON_DEFAULT_TRAITS $t" ;; esac
    done
    NON_DEFAULT_TRAITS=${NON_DEFAULT_TRAITS# }
}

# is_trait NAME: true if the package declares trait NAME ("default" included).
is_trait() {
    case " default $ALL_TRAITS " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

# Runs "$@" with stdout+stderr appended to LOG. SwiftPM aborts a build when a source file changes under it
# ("was modified during the build"), which happens when someone edits the working tree meanwhile: retry
# that (only that) up to twice. Returns the command's status.
run_logged_retrying() {
    local log=$1; shift
    local attempt status
    for attempt in 1 2 3; do
        status=0
        "$@" >>"$log" 2>&1 || status=$?
        if [ "$status" -ne 0 ] && [ "$attempt" -lt 3 ] && tail -n 50 "$log" | grep -q 'was modified during the build'; then
            printf '   (a source file changed during the build; retrying, attempt %d)\n' $((attempt + 1)) >&2
            printf '\n== retry %d: a source file was modified during the build\n' $((attempt + 1)) >>"$log"
            continue
        fi
        return "$status"
    done
}

# now: seconds since the epoch with a fraction where date supports %N (GNU), whole seconds otherwise.
now() {
    local t
    t=$(date +%s.%N 2>/dev/null)
    case "$t" in *N*|'') date +%s ;; *) printf '%s\n' "$t" ;; esac
}

# elapsed START END: END - START in seconds, one decimal.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
