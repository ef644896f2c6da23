/** Telling images and binaries from text by their first bytes, so `read` never prints garbage. */

export type ImageFormat = "png" | "jpeg" | "gif" | "webp";

export const IMAGE_MIME: Record<ImageFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

function startsWith(bytes: Uint8Array, prefix: number[] | string, at = 0): boolean {
  const expected = typeof prefix === "string" ? Array.from(prefix, (c) => c.charCodeAt(0)) : prefix;
  if (bytes.length < at + expected.length) return false;
  return expected.every((b, i) => bytes[at + i] === b);
}

/** The image format from magic bytes; extensions lie too often (a `.png` that is really a JPEG). */
export function detectImage(head: Uint8Array): ImageFormat | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (startsWith(head, [0xff, 0xd8, 0xff])) return "jpeg";
  if (startsWith(head, "GIF87a") || startsWith(head, "GIF89a")) return "gif";
  if (startsWith(head, "RIFF") && startsWith(head, "WEBP", 8)) return "webp";
  return undefined;
}

/** Width and height from the image header, for the text the model gets alongside the pixels. */
export function imageSize(bytes: Uint8Array, format: ImageFormat): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    switch (format) {
      case "png":
        return { width: view.getUint32(16), height: view.getUint32(20) };
      case "gif":
        return { width: view.getUint16(6, true), height: view.getUint16(8, true) };
      case "webp":
        return webpSize(bytes, view);
      case "jpeg":
        return jpegSize(bytes, view);
    }
  } catch {
    // A header too short to hold the size: describe the image without it.
    return undefined;
  }
}

function webpSize(bytes: Uint8Array, view: DataView): { width: number; height: number } | undefined {
  if (startsWith(bytes, "VP8X", 12)) {
    const width = 1 + (bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16));
    const height = 1 + (bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16));
    return { width, height };
  }
  if (startsWith(bytes, "VP8L", 12)) {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (startsWith(bytes, "VP8 ", 12)) {
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  return undefined;
}

function jpegSize(bytes: Uint8Array, view: DataView): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    // Start-of-frame markers carry the size; C4, C8 and CC are other tables with the same prefix.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    }
    at += 2 + view.getUint16(at + 2);
  }
  return undefined;
}

const MAGIC: { bytes: number[] | string; at?: number; kind: string }[] = [
  { bytes: [0x7f, 0x45, 0x4c, 0x46], kind: "ELF executable or library" },
  { bytes: [0xcf, 0xfa, 0xed, 0xfe], kind: "Mach-O binary" },
  { bytes: [0xca, 0xfe, 0xba, 0xbe], kind: "Mach-O universal binary or Java class" },
  { bytes: "MZ", kind: "Windows executable" },
  { bytes: [0x50, 0x4b, 0x03, 0x04], kind: "zip archive (also jar, docx, xlsx)" },
  { bytes: [0x1f, 0x8b], kind: "gzip compressed data" },
  { bytes: "BZh", kind: "bzip2 compressed data" },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], kind: "xz compressed data" },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], kind: "zstd compressed data" },
  { bytes: "7z\xbc\xaf\x27\x1c", kind: "7-zip archive" },
  { bytes: "ustar", at: 257, kind: "tar archive" },
  { bytes: "%PDF", kind: "PDF document" },
  { bytes: "SQLite format 3\0", kind: "SQLite database" },
  { bytes: [0x00, 0x61, 0x73, 0x6d], kind: "WebAssembly module" },
  { bytes: "wOFF", kind: "WOFF font" },
  { bytes: "wOF2", kind: "WOFF2 font" },
  { bytes: "ID3", kind: "MP3 audio" },
  { bytes: "ftyp", at: 4, kind: "MP4/QuickTime media" },
  { bytes: "BM", kind: "BMP image" },
  { bytes: [0x00, 0x00, 0x01, 0x00], kind: "ICO image" },
];

/** Extensions that are binary even when the first bytes happen to look like text. */
const BINARY_EXTENSIONS = new Set(
  (
    "zip gz tgz bz2 xz zst 7z rar tar jar war class exe dll so dylib o a lib obj node wasm pyc pyo " +
    "pdf doc docx xls xlsx ppt pptx odt sqlite sqlite3 db mp3 mp4 m4a wav flac ogg mov avi mkv webm " +
    "ico bmp tiff tif psd woff woff2 ttf otf eot bin dat iso dmg img"
  ).split(" "),
);

export function hasBinaryExtension(path: string): boolean {
  const dot = path.lastIndexOf(".");
  return dot >= 0 && BINARY_EXTENSIONS.has(path.slice(dot + 1).toLowerCase());
}

/** A NUL byte in the first block is what git and ripgrep use to call a file binary. */
export function looksBinary(head: Uint8Array): boolean {
  return head.includes(0);
}

/** A short name for what a binary file is, from its magic bytes. */
export function describeBinary(head: Uint8Array): string {
  for (const magic of MAGIC) if (startsWith(head, magic.bytes, magic.at)) return magic.kind;
  return "binary data";
}
