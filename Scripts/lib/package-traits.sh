# Shared by Scripts/trait-matrix and Scripts/flag-experiment (sourced, not run).
#
# Reads the package's traits from `swift package dump-package` (JSON), so the scripts follow Package.swift's
# `compileOptions` table without a copy of it. Plain bash + POSIX awk (works with mawk): no python, no jq.
#
# After `load_package_traits SCRATCH`:
#   ALL_TRAITS          every trait except "default", sorted, space-separated
#   DEFAULT_TRAITS      the traits the default set turns on, transitively (e.g. ENABLE_SESSION's
#                       ENABLE_PREUPDATE_HOOK), and those DEFAULT_OPTIONS turns on by defines, sorted
#   DEFAULT_TRAITS_LISTED  the same set spelled out trait by trait, for --traits: DEFAULT_TRAITS without the
#                       umbrella traits (DEFAULT_OPTIONS), so that removing one of them from it removes it
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

# Prints one line per `define` build setting of the dump-package JSON on stdin that has trait conditions:
# NAME<TAB>TRAIT1,TRAIT2,... (the setting applies when any of those traits is on). Keys come sorted, so in
# each setting object "condition" precedes "kind", and "tool" ends it.
parse_dump_package_trait_defines() {
    awk '
    /"condition"[ \t]*:/ { traits = ""; in_condition = 1 }
    in_condition && /"traits"[ \t]*:[ \t]*\[/ { in_traits = 1; next }
    in_traits && /\]/ { in_traits = 0; in_condition = 0 }
    in_traits && /^[ \t]*"[^"]*"[ \t]*,?[ \t]*$/ {
        value = $0; sub(/^[ \t]*"/, "", value); sub(/".*$/, "", value)
        traits = traits (traits == "" ? "" : ",") value
    }
    /"define"[ \t]*:/ { in_define = 1 }
    in_define && /"_0"[ \t]*:/ {
        value = $0; sub(/^[ \t]*"_0"[ \t]*:[ \t]*"/, "", value); sub(/".*$/, "", value)
        sub(/=.*$/, "", value)
        if (traits != "") print value "\t" traits
        in_define = 0
    }
    /"tool"[ \t]*:/ { traits = ""; in_define = 0 }'
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
    # A trait can also be on by default through a build setting: Package.swift's DEFAULT_OPTIONS defines the
    # Swift condition (and the SQLite macros) of each default option instead of enabling its trait, so that
    # SwiftPM passes one trait flag. A define named like a trait, under a condition that a default trait
    # meets, counts that trait as on by default.
    local implied t
    implied=$(printf '%s\n' "$json" | parse_dump_package_trait_defines | awk -F'\t' \
        -v defaults=" $DEFAULT_TRAITS " -v all=" $ALL_TRAITS " '
        index(all, " " $1 " ") {
            n = split($2, conditions, ",")
            for (i = 1; i <= n; i++)
                if (index(defaults, " " conditions[i] " ")) { print $1 "\t" conditions[i]; break }
        }')
    DEFAULT_TRAITS_LISTED=$DEFAULT_TRAITS
    if [ -n "$implied" ]; then
        DEFAULT_TRAITS=$(printf '%s\n' $DEFAULT_TRAITS $(printf '%s\n' "$implied" | cut -f1) \
            | LC_ALL=C sort -u | tr '\n' ' ')
        DEFAULT_TRAITS=${DEFAULT_TRAITS% }
        local umbrellas
        umbrellas=" $(printf '%s\n' "$implied" | cut -f2 | LC_ALL=C sort -u | tr '\n' ' ')"
        DEFAULT_TRAITS_LISTED=""
        for t in $DEFAULT_TRAITS; do
            case "$umbrellas" in *" $t "*) ;; *) DEFAULT_TRAITS_LISTED="$DEFAULT_TRAITS_LISTED $t" ;; esac
        done
        DEFAULT_TRAITS_LISTED=${DEFAULT_TRAITS_LISTED# }
    fi
    NON_DEFAULT_TRAITS=""
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
