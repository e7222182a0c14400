/**
 * polite-crawler's public API: the shared engine both programs are built on.
 * Explicit named exports; types apart.
 */
export { CrawlerError, isCrawlerError, describeError } from './errors.js';
export type { ErrorCode, CrawlerErrorOptions } from './errors.js';

export { parseHttpUrl, resolveHttpUrl, DEFAULT_MAX_URL_LENGTH } from './url/http-url.js';
export type { HttpUrl, HttpScheme } from './url/http-url.js';
export { resolveReference, removeDotSegments } from './url/uri.js';
export { encodeTarget } from './url/request-target.js';
export { sameOriginScope, prefixScope, anyScope } from './url/scope.js';
export type { Scope } from './url/scope.js';

export { HttpClient, DEFAULT_CLIENT_OPTIONS } from './http/client.js';
export type { HttpClientOptions, FetchResponse, FetchOptions } from './http/client.js';
export type { WireExchange, ExchangeObserver, Truncation } from './http/wire-exchange.js';
export { buildRequest } from './http/request.js';
export { ResponseParser, DEFAULT_LIMITS, headerValue, headerValues } from './http/response-parser.js';
export type { ParsedResponse, ParserLimits } from './http/response-parser.js';

export { RobotsRules } from './robots/rules.js';
export type { RobotsDecision } from './robots/rules.js';
export { RobotsPolicy, CRAWLER_FAILURE_POLICY, KEYWORD_HUNTER_FAILURE_POLICY } from './robots/policy.js';
export type { RobotsFetcher, RobotsFetchResult, RobotsFailurePolicy, RobotsPolicyOptions } from './robots/policy.js';

export { HtmlLinkExtractor } from './extract/html.js';
export { HrefPatternExtractor } from './extract/href-pattern.js';
export type { LinkExtractor, ExtractedLinks } from './extract/types.js';

export { Politeness } from './frontier/politeness.js';
export { MemoryFrontier } from './frontier/private-memory.js';
export { SqliteFrontier } from './frontier/private-sqlite.js';
export type { FrontierStore, FrontierEntry } from './frontier/private-store.js';
export { MemoryClaimStore } from './frontier/claim-memory.js';
export { SqliteClaimStore } from './frontier/claim-sqlite.js';
export { PostgresClaimStore } from './frontier/claim-postgres.js';
export { DEFAULT_LEASE_MS } from './frontier/claim-store.js';
export type { ClaimStore, Claim, ClaimCrawlConfig, ClaimEntry, ClaimOptions, ClaimResult, Completion, CompletionResult, StoredRobots, TurnResult } from './frontier/claim-store.js';

export { TsePageDirectory } from './sink/tse-pagedir.js';
export { OutputDirSink } from './sink/output-dir.js';

export { Crawl } from './engine/crawl.js';
export type { CrawlOptions, CrawlSummary } from './engine/crawl.js';
export { PagePath } from './engine/page-path.js';
export type { AnsweredPage, PagePolicy, Verdict } from './engine/page-policy.js';
export type { CrawlEvent, CrawlEventSink, LinkAction } from './engine/events.js';
export { PoliteFetcher } from './engine/polite-fetch.js';
export { Worker } from './engine/worker.js';
export type { WorkerOptions, WorkerSummary } from './engine/worker.js';
export type { StoredRobotsPolicy } from './engine/store-robots.js';
export type { PageSink, PageToKeep, StagedPage } from './sink/page-sink.js';

export { CrawlArchive } from './archive/crawl-archive.js';
export type { ArchiveSummary, ArchivedPage, CrawlArchiveOptions } from './archive/crawl-archive.js';
