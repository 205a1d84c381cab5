// Near-miss credentials: a secret the suite holds, presented almost right, as an attacker (or a buggy
// client) presents it: one character changed in the middle, one shorter, one longer, its letters'
// case flipped. A server must refuse each as it refuses a secret it never issued.
//
// A near-miss must be another secret, not another spelling of the same one: a server may decode a
// token before it compares it (base64, base64url, hex), and Node's decoders, like many, are lenient:
// they ignore the padding bits of a base64 string's last character, a trailing partial group, the
// characters outside their alphabet, and hex's letter case. So no form touches the last character
// but to drop it, and each form is kept only when its bytes differ from the original's under every
// such decoding; where the plain form would not, the character goes in the middle instead. A server
// that rightly accepts "the same bytes" is never failed.

/** The near-miss forms of a token, a code or a client secret (requirements.yaml `nearMiss`). */
const NEAR_MISS_FORMS = ['changed', 'shorter', 'longer', 'case'] as const;
export type NearMissForm = (typeof NEAR_MISS_FORMS)[number];

export const NEAR_MISS_WORDS: Record<NearMissForm, string> = {
  changed: 'one character changed in the middle',
  shorter: 'its last character dropped',
  longer: 'one character more',
  case: "its letters' case flipped",
};

export interface NearMiss {
  form: NearMissForm;
  value: string;
}

const HEX = /^[0-9a-f]+$/i;

/** The decodings a server may apply before it compares (Node's, lenient), and the string itself. */
function decodings(s: string): string[] {
  const out = [s, Buffer.from(s, 'base64').toString('hex'), Buffer.from(s, 'base64url').toString('hex')];
  if (HEX.test(s.slice(0, s.length - (s.length % 2))) && s.length >= 2) out.push(Buffer.from(s, 'hex').toString('hex'));
  return out;
}

/** Another secret: different as a string and under each decoding of it that gives any bytes. */
function differs(original: string, candidate: string): boolean {
  if (candidate === original || candidate.length === 0) return false;
  const a = decodings(original);
  const b = decodings(candidate);
  return a.every((x, i) => i === 0 || x === '' || x !== b[i]);
}

/** The next character of the same kind: a digit, a letter of the same case (within a-f for a hex secret). */
function nextOfKind(c: string, hex: boolean): string {
  if (/\d/.test(c)) return String((Number(c) + 1) % 10);
  const lower = c.toLowerCase();
  const alphabet = hex && lower <= 'f' ? 'abcdef' : 'abcdefghijklmnopqrstuvwxyz';
  const next = alphabet[(alphabet.indexOf(lower) + 1) % alphabet.length];
  return c === lower ? next : next.toUpperCase();
}

/** The index of a letter or digit nearest the middle, never the last character (-1: none). */
function middleIndex(s: string): number {
  const last = s.length - 1;
  const mid = Math.min(Math.floor(s.length / 2), last - 1);
  for (let d = 0; d <= s.length; d++) {
    for (const i of [mid - d, mid + d]) if (i >= 0 && i < last && /[a-z0-9]/i.test(s[i])) return i;
  }
  return -1;
}

const insertAt = (s: string, i: number, c: string) => s.slice(0, i) + c + s.slice(i);

function candidates(s: string, form: NearMissForm, hex: boolean): string[] {
  const mid = middleIndex(s);
  switch (form) {
    case 'changed':
      return mid < 0 ? [] : [s.slice(0, mid) + nextOfKind(s[mid], hex) + s.slice(mid + 1)];
    case 'shorter':
      // The last dropped (a server comparing prefixes takes it); else one from the middle.
      return [s.slice(0, -1), ...(mid < 0 ? [] : [s.slice(0, mid) + s.slice(mid + 1)])];
    case 'longer': {
      // One more at the end (a server comparing prefixes takes it); else in the middle.
      const extra = mid < 0 ? 'a' : nextOfKind(s[mid], hex);
      return [s + extra, ...(mid < 0 ? [] : [insertAt(s, mid, extra)])];
    }
    case 'case': {
      const flipped = [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
      return flipped === s ? [] : [flipped];
    }
  }
}

/**
 * The near-miss forms of `secret` asked for, each another secret (see above): a form that cannot be
 * made so (no letter to flip; a secret too short) is left out.
 */
export function nearMisses(secret: string, forms: readonly NearMissForm[] = NEAR_MISS_FORMS): NearMiss[] {
  const hex = HEX.test(secret);
  const out: NearMiss[] = [];
  for (const form of forms) {
    if (secret.length < 2) continue;
    const value = candidates(secret, form, hex).find((c) => differs(secret, c));
    if (value !== undefined && !out.some((m) => m.value === value)) out.push({ form, value });
  }
  return out;
}

/** The near-miss forms of a device's pin (digits). */
const PIN_NEAR_MISS_FORMS = ['changed', 'swapped', 'longer', 'shorter', 'leading-zero'] as const;
export type PinNearMissForm = (typeof PIN_NEAR_MISS_FORMS)[number];

export interface PinNearMiss {
  form: PinNearMissForm;
  value: string;
  /**
   * Its length is the pin's: surely a wrong pin. A pin one digit longer or shorter may be malformed to a
   * server whose pins have one length (the documents state none), and a malformed pin may not count as
   * a failed attempt (variant malformed-pin-counts makes it count): the lock is decided by the sure ones.
   */
  sameLength: boolean;
}

export const PIN_NEAR_MISS_WORDS: Record<PinNearMissForm, string> = {
  changed: 'a digit changed',
  swapped: 'two digits swapped',
  longer: 'one digit more',
  shorter: 'one digit less',
  'leading-zero': 'a leading zero',
};

/** The near-miss forms of a pin of digits, each another pin, in PIN_NEAR_MISS_FORMS order. */
export function pinNearMisses(pin: string): PinNearMiss[] {
  const digits = [...pin];
  const mid = Math.floor(pin.length / 2);
  const changed = digits.map((d, i) => (i === mid && /\d/.test(d) ? String((Number(d) + 1) % 10) : d)).join('');
  const pair = digits.findIndex((d, i) => i + 1 < digits.length && d !== digits[i + 1]);
  const swapped = pair < 0 ? pin : [...digits.slice(0, pair), digits[pair + 1], digits[pair], ...digits.slice(pair + 2)].join('');
  const all: PinNearMiss[] = [
    { form: 'changed', value: changed, sameLength: true },
    { form: 'swapped', value: swapped, sameLength: true },
    { form: 'longer', value: `${pin}${(Number(pin.at(-1) ?? 0) + 1) % 10}`, sameLength: false },
    { form: 'shorter', value: pin.slice(0, -1), sameLength: false },
    { form: 'leading-zero', value: `0${pin}`, sameLength: false },
  ];
  return all.filter((m, i) => m.value !== pin && m.value.length > 0 && !all.slice(0, i).some((o) => o.value === m.value));
}
