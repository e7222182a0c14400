/**
 * The `entities` package's attribute decoder, loaded at its first use: the
 * package builds its decode tables when it loads, a cost every run's start
 * would pay (docs/performance.md, Start-up), and most pages' hrefs hold no `&`.
 */
import type * as Entities from 'entities/decode';
import { createRequire } from 'node:module';

let decoder: typeof Entities.decodeHTMLAttribute | undefined;

/** `decodeHTMLAttribute` of `entities/decode`. */
export function decodeHTMLAttribute(value: string): string {
  decoder ??= load().decodeHTMLAttribute;
  return decoder(value);
}

function load(): typeof Entities {
  // A program's bundle is CommonJS: esbuild bundles this require and runs the
  // module here. tsc's output is an ES module, without require (node >= 20.19
  // requires an ES module such as entities synchronously).
  return typeof require === 'function' ? (require('entities/decode') as typeof Entities) : (createRequire(import.meta.url)('entities/decode') as typeof Entities);
}
