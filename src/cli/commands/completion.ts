// `podplan completion bash|zsh`: a shell completion script for the commands and their options, made
// from the commands' own help (every option an Options section lists), so it never drifts from them.
import { parseCommand } from '../arguments';
import { EXIT, type Command } from '../io';

const HELP = `Usage: podplan completion bash|zsh

Prints a completion script for the shell: commands, each command's options, the formats of
-o/--output, and file names for paths.

  bash: source <(podplan completion bash)       (or save it under ~/.local/share/bash-completion/completions/podplan)
  zsh:  source <(podplan completion zsh)        (or save it as _podplan in a directory of $fpath)

Options:
  -h, --help  this help

Examples:
  podplan completion bash > ~/.local/share/bash-completion/completions/podplan
  podplan completion zsh > "\${fpath[1]}/_podplan"
`;

/** The options a command's help lists (`  -o, --output <…>`, `  --seed <n>`), long forms. */
export function helpOptions(help: string): string[] {
  const options = new Set<string>();
  for (const m of help.matchAll(/^ {2}(?:-\w, )?(--[a-z][\w-]*)/gm)) options.add(m[1] as string);
  return [...options];
}

/** The formats a command's help offers for -o (`-o, --output <json|yaml>`). */
function outputFormats(help: string): string[] {
  return /--output <([\w|]+)>/.exec(help)?.[1]?.split('|') ?? [];
}

function bash(commands: readonly Command[]): string {
  const cases = commands
    .map((c) => `    ${c.name}) options="${helpOptions(c.help).join(' ')}"; formats="${outputFormats(c.help).join(' ')}" ;;`)
    .join('\n');
  return `# podplan completion for bash: source <(podplan completion bash)
_podplan() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} options="" formats=""
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${commands.map((c) => c.name).join(' ')} --help --version" -- "$cur"))
    return
  fi
  case \${COMP_WORDS[1]} in
${cases}
  esac
  if [[ \${COMP_WORDS[1]} == completion && $COMP_CWORD -eq 2 ]]; then
    COMPREPLY=($(compgen -W "bash zsh" -- "$cur"))
  elif [[ ($prev == -o || $prev == --output) && -n $formats ]]; then
    COMPREPLY=($(compgen -W "$formats" -- "$cur"))
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options --help" -- "$cur"))
  else
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _podplan podplan
`;
}

function zsh(commands: readonly Command[]): string {
  const described = commands.map((c) => `    '${c.name}:${c.summary.replaceAll("'", "'\\''").replaceAll(':', '\\:')}'`).join('\n');
  const cases = commands
    .map((c) => `    ${c.name}) options=(${helpOptions(c.help).join(' ')}); formats=(${outputFormats(c.help).join(' ')}) ;;`)
    .join('\n');
  return `#compdef podplan
# podplan completion for zsh: source <(podplan completion zsh), or save it as _podplan in $fpath
_podplan() {
  local -a commands options formats
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe 'podplan command' commands
    return
  fi
  case \${words[2]} in
${cases}
  esac
  if [[ \${words[2]} == completion && CURRENT -eq 3 ]]; then
    compadd bash zsh
  elif [[ (\${words[CURRENT-1]} == -o || \${words[CURRENT-1]} == --output) && \${#formats} -gt 0 ]]; then
    compadd -a formats
  elif [[ \${words[CURRENT]} == -* ]]; then
    compadd -a options
    compadd -- --help
  else
    _files
  fi
}
if [[ "\${funcstack[1]}" == _podplan ]]; then
  _podplan "$@"
else
  compdef _podplan podplan
fi
`;
}

/** The completion command for `commands` (given late: the list includes this command). */
export function completionCommand(commands: () => readonly Command[]): Command {
  return {
    name: 'completion',
    summary: 'print a completion script for bash or zsh',
    help: HELP,
    async run(args, io) {
      const parsed = parseCommand('completion', args, {}, 1, io);
      if (!parsed) return EXIT.badInput;
      const shell = parsed.positionals[0];
      if (shell === 'bash') io.stdout(bash(commands()));
      else if (shell === 'zsh') io.stdout(zsh(commands()));
      else {
        io.stderr(`podplan completion: ${shell === undefined ? 'name a shell' : `no completion for "${shell}"`}: bash or zsh\n`);
        return EXIT.badInput;
      }
      return EXIT.ok;
    },
  };
}
