/** The commands of a --help's Examples section, read back as a user would copy them. */

/** Each command of the Examples section as its words, a line continued with " \" joined to the next. */
export function exampleCommands(help: string, program: string): string[][] {
  const section = help.slice(help.indexOf('\nExamples'));
  const joined = section.replace(/ \\\n +/g, ' ');
  return joined.split('\n').flatMap((l) => (l.startsWith(`    ${program} `) ? [l.trim().split(' ')] : []));
}
