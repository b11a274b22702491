import { createInterface } from 'node:readline';

/**
 * A password for a CLI command, never from its arguments (they end up in shell history and in
 * `ps`): typed at a prompt, twice and not echoed, when a terminal is attached; otherwise the first
 * line of standard input (`printf '%s\n' "$PASSWORD" | npm run cli -- create-admin ...`).
 */
export async function readPassword(stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (!stdin.isTTY) {
    const line = await firstLine(stdin);
    if (!line)
      throw new Error(
        'No password on standard input: pipe it in, or run the command in a terminal to be asked for it.',
      );
    return line;
  }
  const first = await prompt('Password: ');
  const second = await prompt('Repeat the password: ');
  if (first !== second) throw new Error('The two passwords differ.');
  return first;
}

async function firstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  const lines = createInterface({ input: stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return '';
}

function prompt(question: string): Promise<string> {
  return new Promise((resolve) => {
    const terminal = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    // Typed characters are not echoed: only the question is written.
    const output = terminal as unknown as { _writeToOutput: (text: string) => void };
    let asked = false;
    output._writeToOutput = (text: string) => {
      if (!asked) {
        asked = true;
        process.stderr.write(text);
      }
    };
    terminal.question(question, (answer) => {
      terminal.close();
      process.stderr.write('\n');
      resolve(answer);
    });
  });
}
