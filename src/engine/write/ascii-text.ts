// A growing buffer of ASCII bytes: the SVG writer and the shading map write their documents into
// one, as a string per number, joined per shape, costs more than the drawing on a photograph.

export interface AsciiText {
  bytes: Buffer;
  /** Bytes written so far. */
  length: number;
}

/** Makes room for this many more bytes. */
export function reserve(text: AsciiText, bytes: number): void {
  if (text.length + bytes <= text.bytes.length) return;
  const grown = Buffer.allocUnsafe(Math.max(text.bytes.length * 2, text.length + bytes));
  text.bytes.copy(grown, 0, 0, text.length);
  text.bytes = grown;
}

export function writeAscii(text: AsciiText, ascii: string): void {
  reserve(text, ascii.length);
  text.length += text.bytes.write(ascii, text.length, 'latin1');
}

export function writeByte(text: AsciiText, byte: number): void {
  reserve(text, 1);
  text.bytes[text.length++] = byte;
}
