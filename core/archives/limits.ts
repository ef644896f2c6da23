/** Entries an archive may have for omp to index it. */
export const MAX_ARCHIVE_ENTRIES = 100_000;
/** The largest member read out of an archive (unpacked), and so the memory one read may take. */
export const MAX_MEMBER_BYTES = 64 * 1024 * 1024;
/**
 * Unpacked/packed beyond this, a member is treated as a zip bomb: real files compress up to about
 * 1:100 (logs, zeros in images), bombs by 1:1000 and more.
 */
export const MAX_COMPRESSION_RATIO = 200;
/** Members smaller than this pass whatever their ratio: they cannot hurt. */
export const RATIO_EXEMPT_BYTES = 1024 * 1024;
/**
 * All the members of one document (DOCX, PPTX, XLSX, EPUB) unpacked together: what reading it may
 * cost, checked on the declared sizes before anything is inflated and on the real ones as they are.
 */
export const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;
