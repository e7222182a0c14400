/**
 * Imported just before `pg`, and undone just after it (claim-postgres.ts).
 *
 * pg 8 asks, while its modules load, whether it runs in a Cloudflare Worker:
 * first `navigator.userAgent`, and where there is no `navigator` (Node 20
 * has none; Node 21 and later do) by constructing a fetch `Response`. The
 * global `Response` loads node's bundled undici, a large part of every
 * PostgreSQL worker's start (docs/performance.md, Start-up), which eight workers starting together on two cores wait for in turn. A
 * `navigator` that says Node.js, for the moment of the load, answers first.
 */
const g = globalThis as { navigator?: unknown };
const lent = g.navigator === undefined;
if (lent) Object.defineProperty(g, 'navigator', { value: { userAgent: 'Node.js' }, configurable: true, writable: true });

/** Takes back the `navigator` lent for pg's load (none of ours stays behind). */
export function returnNavigator(): void {
  if (lent && (g.navigator as { userAgent?: unknown } | undefined)?.userAgent === 'Node.js') delete g.navigator;
}
