/**
 * The link-extractor plug-in interface. A crawler hands each fetched page body
 * to one LinkExtractor and resolves what comes back against the page URL (or
 * against `base`, when the page declares one).
 */

/** What an extractor found in one page, in document order. */
export interface ExtractedLinks {
  /** Link targets exactly as the page states them (after any decoding the extractor does), unresolved. */
  hrefs: string[];
  /** The page's own base URL (`<base href>`), unresolved; undefined when the page has none. */
  base: string | undefined;
}

/** Finds link targets in a page body. Tiny plug-in interface. */
export interface LinkExtractor {
  /** Extracts the links of one page body (raw bytes). Never throws on malformed input. */
  extract(body: Buffer): ExtractedLinks;
}
