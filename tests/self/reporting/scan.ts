// Searches report files for secret values wherever they may hide: plain text, URL-encoded, inside
// zip archives (blob reports, the zip Playwright's HTML report embeds) and inside base64 runs
// (the HTML report's embedded zip, Allure's single-file data, HTTP Basic credentials).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

interface Hit {
  where: string;
  secret: string;
  context: string;
}

export interface ScanResult {
  hits: Hit[];
  /** Every place scanned (files, zip entries, decoded base64 blobs), to show the scan was not vacuous. */
  places: string[];
  /** Whether each marker (a known non-secret string) was seen somewhere: proof that a layer was decoded. */
  markers: Record<string, string[]>;
}

/** How much of a secret's start or end a near-miss of it still holds, that the scan looks for. */
const NEAR = 16;

export class Scanner {
  private readonly needles: Array<{ secret: string; form: string }>;
  readonly result: ScanResult = { hits: [], places: [], markers: {} };

  /** The first and the last NEAR characters of each `nearOf` secret, lower-cased: found in a near-miss of it too. */
  private readonly nearNeedles: Array<{ secret: string; form: string }>;

  /**
   * `nearOf`: secrets whose near-misses the checks present (one character changed in the middle, the last
   * dropped, one more, the case flipped): each keeps the secret's start or end, in one case or the other.
   */
  constructor(
    secrets: string[],
    private readonly markers: string[] = [],
    nearOf: string[] = [],
  ) {
    this.needles = secrets.flatMap((secret) => [...new Set([secret, encodeURIComponent(secret)])].map((form) => ({ secret, form })));
    this.nearNeedles = nearOf
      .filter((secret) => secret.length >= 2 * NEAR)
      .flatMap((secret) => [secret.slice(0, NEAR), secret.slice(-NEAR)].map((part) => ({ secret: `${secret} (near-miss)`, form: part.toLowerCase() })));
    for (const m of markers) this.result.markers[m] = [];
  }

  scanTree(dir: string): void {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) this.scanTree(full);
      else if (entry.isFile()) this.scanBuffer(full, fs.readFileSync(full), 0);
    }
  }

  scanText(where: string, text: string): void {
    this.scanBuffer(where, Buffer.from(text), 0);
  }

  private scanBuffer(where: string, data: Buffer, depth: number): void {
    this.result.places.push(where);
    if (isZip(data)) {
      for (const [name, content] of unzip(data)) this.scanBuffer(`${where}!${name}`, content, depth + 1);
      return;
    }
    const text = data.toString('utf8');
    for (const { secret, form } of this.needles) {
      let i = text.indexOf(form);
      while (i >= 0) {
        this.result.hits.push({ where, secret, context: text.slice(Math.max(0, i - 80), i + form.length + 40) });
        i = text.indexOf(form, i + 1);
      }
    }
    if (this.nearNeedles.length) {
      const lower = text.toLowerCase();
      for (const { secret, form } of this.nearNeedles) {
        const i = lower.indexOf(form);
        if (i >= 0) this.result.hits.push({ where, secret, context: text.slice(Math.max(0, i - 80), i + form.length + 40) });
      }
    }
    for (const m of this.markers) if (text.includes(m)) this.result.markers[m].push(where);
    if (depth >= 4) return;
    for (const run of text.match(/[A-Za-z0-9+/]{40,}={0,2}/g) ?? []) {
      const decoded = Buffer.from(run, 'base64');
      if (isZip(decoded) || mostlyText(decoded)) this.scanBuffer(`${where}#base64`, decoded, depth + 1);
    }
  }
}

function isZip(data: Buffer): boolean {
  return data.length > 22 && data.readUInt32LE(0) === 0x04034b50;
}

function mostlyText(data: Buffer): boolean {
  const sample = data.subarray(0, 512);
  let printable = 0;
  for (const b of sample) if (b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127) || b >= 0xc2) printable++;
  return sample.length > 0 && printable / sample.length > 0.9;
}

/** A minimal reader of zip archives (stored and deflated entries): enough for Playwright's zips. */
function unzip(zip: Buffer): Array<[string, Buffer]> {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: Array<[string, Buffer]> = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const raw = zip.subarray(dataStart, dataStart + compressedSize);
    if (!name.endsWith('/')) entries.push([name, method === 8 ? zlib.inflateRawSync(raw) : Buffer.from(raw)]);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
