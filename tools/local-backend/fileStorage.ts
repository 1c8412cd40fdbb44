/**
 * Convex file storage for the offline backend: blobs on disk under
 * `<data>/storage/`, one file per `_storage` document, named by its id.
 *
 * Order of writes, so a crash never leaves a `_storage` row without its
 * blob: the bytes go to a temp file, which is fsynced and renamed to the
 * id's name (and the folder fsynced) inside the transaction that inserts the
 * row, before that transaction reaches the write-ahead log. A crash before
 * the log line is durable leaves a file without a row: an orphan, removed at
 * the next start. A deleted row's file is removed once the delete is durable.
 *
 * Upload URLs are single-use, expire, and cap the body; file URLs carry an
 * HMAC of the id, so ids cannot be turned into URLs without the key (and ids are random besides: newStorageId).
 * Upload tokens are signed too (expiry and a nonce, with the same key kept
 * in the data folder), so a URL handed out before a restart works after it
 * until it expires; the nonces of used tokens are kept on disk until then,
 * so a URL takes one file across restarts too.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";

/** Largest body an upload URL accepts unless configured (MAESTRO_MAX_UPLOAD_BYTES). */
export const DEFAULT_MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
/** How long an upload URL stays valid, as on Convex. */
export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const TEMP_PREFIX = ".upload-";
const UPLOAD_NONCE_BYTES = 16;
/** `<expiresAt ms>.<nonce hex>.<HMAC base64url>`. */
const UPLOAD_TOKEN = /^([0-9]{1,16})\.([0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/;
/** Expired lines the claims file may hold before it is rewritten without them. */
const CLAIMS_SLACK = 100;
/** Storage ids as the engine hands them out: digits and the table name (the shape convex-test reads a table from). Nothing else is ever a path. */
const STORAGE_ID = /^[0-9]+_storage$/;
/** Random digits in a new storage id: about 100 bits, so no id can be guessed from another, as on Convex. */
const STORAGE_ID_DIGITS = 30;

/** A fresh storage id: random digits (never a counter, which would let anyone guess the next upload's id) and `_storage`. */
export function newStorageId(): string {
  const bytes = randomBytes(16);
  const value = BigInt(`0x${bytes.toString("hex")}`) % 10n ** BigInt(STORAGE_ID_DIGITS);
  // A leading 1 keeps every id the same length and apart from the counter's (shorter, zero-padded) ids.
  return `1${value.toString().padStart(STORAGE_ID_DIGITS, "0")}_storage`;
}

export interface FileStoreOptions {
  dataDir: string;
  maxUploadBytes?: number;
  uploadTtlMs?: number;
  now?: () => number;
}

export class FileStore {
  /** The API port's URL, known once the server listens; URLs handed out are built on it. */
  baseUrl = "http://127.0.0.1:3210";
  readonly dir: string;
  readonly maxUploadBytes: number;
  private readonly uploadTtlMs: number;
  private readonly now: () => number;
  /** Nonce of each used upload token → when that token expires; mirrored in `claimsFile`. */
  private readonly claimed = new Map<string, number>();
  /** Lines in `claimsFile`, to know when expired ones are worth compacting away. */
  private claimLines = 0;
  private readonly claimsFile: string;
  private readonly urlKey: Buffer;

  constructor(options: FileStoreOptions) {
    this.dir = path.join(options.dataDir, "storage");
    this.maxUploadBytes = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
    this.uploadTtlMs = options.uploadTtlMs ?? UPLOAD_URL_TTL_MS;
    this.now = options.now ?? Date.now;
    mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    chmodSync(this.dir, DIR_MODE);
    // Kept beside the folder, not in it: file URLs stay valid across restarts.
    this.urlKey = loadOrCreateKey(path.join(options.dataDir, "storage-url-key"));
    this.claimsFile = path.join(options.dataDir, "storage-upload-claims");
    this.loadClaims();
  }

  /** Removes temp files and blobs no `_storage` row names (a crash between blob and log line). Returns how many. */
  removeOrphans(liveIds: ReadonlySet<string>): number {
    let removed = 0;
    for (const name of readdirSync(this.dir)) {
      if (STORAGE_ID.test(name) && liveIds.has(name)) continue;
      unlinkSync(path.join(this.dir, name));
      removed += 1;
    }
    if (removed > 0) this.syncDir();
    return removed;
  }

  /** A fresh single-use upload URL: `<expiresAt>.<nonce>.<signature>`, valid across restarts until it expires. */
  newUploadUrl(): string {
    const expiresAt = this.now() + this.uploadTtlMs;
    const nonce = randomBytes(UPLOAD_NONCE_BYTES).toString("hex");
    return `${this.baseUrl}/api/storage/upload?token=${expiresAt}.${nonce}.${this.signUpload(expiresAt, nonce)}`;
  }

  /** Uses up an upload token: true once for a genuine, unexpired token, false ever after (a restart included). */
  claimUpload(token: string): boolean {
    const match = UPLOAD_TOKEN.exec(token);
    if (match === null) return false;
    const [, expiry, nonce, signature] = match;
    const expiresAt = Number(expiry);
    const now = this.now();
    if (!Number.isSafeInteger(expiresAt) || expiresAt <= now) return false;
    const expected = Buffer.from(this.signUpload(expiresAt, nonce));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    if (this.claimed.has(nonce)) return false;
    for (const [used, until] of this.claimed) if (until <= now) this.claimed.delete(used);
    this.claimed.set(nonce, expiresAt);
    // Durable before the body is taken: a crash after this line can only cost the client a new URL.
    if (this.claimLines > 2 * this.claimed.size + CLAIMS_SLACK) this.rewriteClaims();
    else this.appendClaim(`${expiresAt} ${nonce}\n`);
    return true;
  }

  private signUpload(expiresAt: number, nonce: string): string {
    // A prefix of its own, so an upload signature is never a file URL's (whose ids are digits and "_storage").
    return createHmac("sha256", this.urlKey).update(`upload:${expiresAt}:${nonce}`).digest("base64url");
  }

  /** Reads the used tokens still unexpired, and drops the rest from the file. */
  private loadClaims() {
    if (!existsSync(this.claimsFile)) return;
    const now = this.now();
    let lines = 0;
    for (const line of readFileSync(this.claimsFile, "utf8").split("\n")) {
      const match = /^([0-9]+) ([0-9a-f]+)$/.exec(line.trim());
      if (match === null) continue;
      lines += 1;
      const expiresAt = Number(match[1]);
      if (expiresAt > now) this.claimed.set(match[2], expiresAt);
    }
    this.claimLines = lines;
    if (lines > this.claimed.size) this.rewriteClaims();
  }

  private appendClaim(text: string) {
    const fd = openSync(this.claimsFile, "a", FILE_MODE);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.claimLines += text.split("\n").length - 1;
  }

  /** Writes the unexpired claims to a temp file and renames it over the old one (never a half file). */
  private rewriteClaims() {
    const temp = `${this.claimsFile}.tmp`;
    const text = [...this.claimed].map(([nonce, expiresAt]) => `${expiresAt} ${nonce}\n`).join("");
    writeFileSync(temp, text, { mode: FILE_MODE });
    const fd = openSync(temp, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.claimsFile);
    this.claimLines = this.claimed.size;
  }

  /** Writes bytes to a durable temp file in the storage folder; `place` later names it. */
  writeTemp(bytes: Uint8Array): string {
    const file = path.join(this.dir, `${TEMP_PREFIX}${randomBytes(12).toString("hex")}`);
    const fd = openSync(file, "wx", FILE_MODE);
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return file;
  }

  /** Gives a temp file its storage id's name, durably (called before the row's commit). */
  place(tempFile: string, storageId: string) {
    renameSync(tempFile, this.pathOf(storageId));
    this.syncDir();
  }

  /** Drops a temp file whose row never came (a failed store). */
  removeTemp(tempFile: string) {
    if (path.dirname(tempFile) === this.dir && path.basename(tempFile).startsWith(TEMP_PREFIX) && existsSync(tempFile)) unlinkSync(tempFile);
  }

  /** The blob's bytes, or null if there is no such file. */
  read(storageId: string): Buffer | null {
    const file = this.pathOf(storageId);
    return existsSync(file) ? readFileSync(file) : null;
  }

  /** The blob's size on disk, or null. */
  sizeOf(storageId: string): number | null {
    const file = this.pathOf(storageId);
    return existsSync(file) ? statSync(file).size : null;
  }

  remove(storageId: string) {
    const file = this.pathOf(storageId);
    if (existsSync(file)) unlinkSync(file);
  }

  /** The URL serving a stored file. */
  urlFor(storageId: string): string {
    return `${this.baseUrl}/api/storage/${storageId}?token=${this.sign(storageId)}`;
  }

  /** Whether `token` is the one `urlFor` put in this id's URL. */
  verifyUrlToken(storageId: string, token: string): boolean {
    if (!STORAGE_ID.test(storageId)) return false;
    const expected = Buffer.from(this.sign(storageId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private sign(storageId: string): string {
    return createHmac("sha256", this.urlKey).update(storageId).digest("base64url");
  }

  private pathOf(storageId: string): string {
    if (!STORAGE_ID.test(storageId)) throw new Error(`Not a storage id: ${JSON.stringify(storageId)}`);
    return path.join(this.dir, storageId);
  }

  private syncDir() {
    const fd = openSync(this.dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** Whether `id` has the shape of a storage id (what may become a file name). */
export function isStorageId(id: string): boolean {
  return STORAGE_ID.test(id);
}

function loadOrCreateKey(file: string): Buffer {
  if (existsSync(file)) return Buffer.from(readFileSync(file, "utf8").trim(), "hex");
  const key = randomBytes(32);
  writeFileSync(file, key.toString("hex"), { mode: FILE_MODE });
  return key;
}
