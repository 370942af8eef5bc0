extension Completion {
    /// The script `reel completion SHELL` prints and the package installs.
    public static func script(for shell: String) -> String {
        switch shell {
        case "bash": bash
        case "zsh": zsh
        default: fish
        }
    }

    static let bash = #"""
        # bash completion for reel; made by reel completion bash
        _reel() {
            local cur=${COMP_WORDS[COMP_CWORD]} line
            local -a lines
            mapfile -t lines < <(reel __complete "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null)
            COMPREPLY=()
            if [[ ${lines[0]} == files ]]; then
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
                return
            fi
            for line in "${lines[@]:1}"; do
                line=${line%%$'\t'*}
                COMPREPLY+=("$(printf '%q' "$line")")
            done
        }
        complete -F _reel reel

        """#

    static let zsh = #"""
        #compdef reel
        # zsh completion for reel; made by reel completion zsh
        _reel() {
            local -a lines described
            local line value desc
            lines=("${(@f)$(reel __complete "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
            for line in "${(@)lines[2,-1]}"; do
                [[ -z $line ]] && continue
                value=${line%%$'\t'*}
                desc=${line#*$'\t'}
                [[ $desc == $line ]] && desc=
                described+=("${value//:/\\:}${desc:+:$desc}")
            done
            (( ${#described} )) && _describe -t reel 'reel' described
            [[ ${lines[1]} == files ]] && _files
            return 0
        }
        if [[ ${funcstack[1]} == _reel ]]; then _reel "$@"; else compdef _reel reel; fi

        """#

    static let fish = #"""
        # fish completion for reel; made by reel completion fish
        function __reel_complete
            set -l before (commandline -opc)
            set -e before[1]
            set -l current (commandline -ct)
            set -l lines (reel __complete $before "$current" 2>/dev/null)
            if test "$lines[1]" = files
                __fish_complete_path "$current"
            end
            set -e lines[1]
            printf '%s\n' $lines
        end
        complete -c reel -f -a '(__reel_complete)'

        """#
}
