/** Convex's wire form of a u64 timestamp: base64 of its 8 little-endian bytes. */
export function encodeTs(ts: bigint): string {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(ts);
  return bytes.toString("base64");
}

export function decodeTs(encoded: string): bigint {
  return Buffer.from(encoded, "base64").readBigUInt64LE();
}
