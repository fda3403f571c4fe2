/** What an import reads at most, and how long one line may be. */
export interface ImportLimits {
  bytes: number;
  lines: number;
  lineLength: number;
}

/** Thrown when the input breaks a limit; the service turns it into its own error. */
export class LimitError extends Error {
  constructor(
    readonly limit: keyof ImportLimits,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The lines of a byte stream as they arrive, numbered from 1, without their
 * line ending. Stops with a LimitError past `bytes` bytes, `lines` lines or a
 * line of more than `lineLength` characters, so no input is held whole.
 */
export async function* numberedLines(
  source: AsyncIterable<Buffer | string>,
  limits: ImportLimits,
): AsyncGenerator<{ line: number; text: string }> {
  const decoder = new TextDecoder();
  let bytes = 0;
  let line = 0;
  let rest = '';
  const next = (text: string) => {
    if (++line > limits.lines) throw new LimitError('lines', `the file has more than ${limits.lines} lines`);
    if (text.length > limits.lineLength)
      throw new LimitError('lineLength', `line ${line} is longer than ${limits.lineLength} characters`);
    return { line, text: text.replace(/\r$/, '') };
  };
  for await (const chunk of source) {
    bytes += chunk.length;
    if (bytes > limits.bytes) throw new LimitError('bytes', `the file is larger than ${limits.bytes} bytes`);
    const pieces = (rest + (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }))).split('\n');
    rest = pieces.pop()!;
    for (const piece of pieces) yield next(piece);
    if (rest.length > limits.lineLength)
      throw new LimitError('lineLength', `line ${line + 1} is longer than ${limits.lineLength} characters`);
  }
  rest += decoder.decode();
  if (rest !== '') yield next(rest);
}
