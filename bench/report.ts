// docs/benchmarks.md is shared: the engine bench writes the top, and each other benchmark owns
// a section between `<!-- NAME:start -->` and `<!-- NAME:end -->` that the others keep.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

/**
 * Writes (or replaces) the section `name` of the report (or of another document at `path`, begun
 * with `initial` when it does not exist yet) with `body`.
 */
export function writeReportSection(name: string, body: string, path = REPORT_PATH, initial = '# Benchmarks\n'): void {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  mkdirSync(dirname(path), { recursive: true });
  const text = existsSync(path) ? readFileSync(path, 'utf8') : initial;
  const at = text.indexOf(start);
  const until = text.indexOf(end);
  writeFileSync(
    path,
    at >= 0 && until > at ? `${text.slice(0, at)}${block}${text.slice(until + end.length)}` : `${text.trimEnd()}\n\n${block}\n`,
  );
}

/** Replaces the report's top with `top`, keeping every named section below it. */
export function writeReportTop(top: string): void {
  const previous = existsSync(REPORT_PATH) ? readFileSync(REPORT_PATH, 'utf8') : '';
  const kept = [...previous.matchAll(/<!-- (\w+):start -->[\s\S]*?<!-- \1:end -->/g)].map((match) => match[0]);
  mkdirSync(dirname(REPORT_PATH), { recursive: true });
  writeFileSync(REPORT_PATH, `${[top.trimEnd(), ...kept].join('\n\n')}\n`);
}
