/** The crawl state's file name inside a page directory (the SQLite frontier's; the page directory's ownership check knows it too). */
export const STATE_FILE = '.crawler-state.db';
