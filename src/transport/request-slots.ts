// The target's maxConcurrency is the run's: no more requests in flight at once, whoever sends them.
// In one process it is a count of slots (requestSlot). When several workers run the route groups side
// by side (a distant target), a fixed share each (the cap over the workers) leaves idle the slots of a
// worker that needs few (the device checks' write lane keeps two or three requests in flight) while
// the others queue behind theirs: at 300 ms of round trip the cars and trips groups were bound by
// their third of the cap. So the runner lends slots: it holds a pool (the cap less the few slots each
// process keeps as its own: run-context.ts shareSlots), and a worker asks it for a slot for each
// request it cannot start with its own, and gives it back when the request ends. The pool lends in turn among the workers that
// ask (round robin): a worker with a long queue does not keep another waiting behind it.
//
// Never more than the cap in flight: each process's own slots, and what the pool lends, never more
// than the pool.
//
// Below the cap, the suite must not be the load that fails a server: a run with many large answers in
// flight on a busy machine (a month of a car's positions, 20 MB each) makes its own answers late, and
// late answers that time out would be counted as the server's. So the slots this process uses follow
// the answers' pace as TCP's congestion control does (AIMD: additive increase, multiplicative
// decrease; Netflix's concurrency-limits applies the same to requests): each answer on time lets one
// more request in per window of answers, up to the cap; an answer that took more than half its
// time-out, or none within it, halves the requests in flight (once per window: the late answers of one
// burst are one signal), down to MIN_IN_FLIGHT. No npm library does this for a client (p-limit,
// p-queue, bottleneck and cockatiel keep a fixed limit): it is the few lines below. And a request
// whose time-out may have been the suite's own load is sent again alone (sendAlone: nothing else of
// this process in flight, new requests held back) before its time-out counts as the server's (api.ts). A worker that cannot reach the pool goes on with its own slots. The messages are lines on a
// Unix socket (a named pipe on Windows) in the run's state folder: the worker's "+N" (N more wanted),
// "~N" (N fewer: its own slot served them) and "-N" (N given back); the pool's "+N" (N lent).
import net from 'node:net';
import path from 'node:path';
import { httpPolicy } from './http-policy';

type Slot = 'own' | 'lent';

/**
 * This process's own slots in use (at most httpPolicy().maxConcurrency), and the requests waiting for
 * one: a write lane's first (its checks wait for one another: each of its waits is the lane's), each
 * queue in its order.
 */
let inFlight = 0;
/** Of the slots lent by the pool, those in use now. */
let lentInUse = 0;
/** The requests in flight this process lets itself have now (AIMD), at most the cap. */
let window = Infinity;
/** Answers since the window last changed: a new window lets one more in once as many answers came back on time. */
let onTimeSince = 0;
/** The window is not halved again before as many requests ended as were in flight when it last was (that burst's late answers are one signal). */
let endedSinceHalving = 0;
let halvedAt = -1;
/** Requests held back while one is sent alone (sendAlone), and the alone request's turn. */
let aloneGate: Promise<void> | undefined;
let aloneChain: Promise<unknown> = Promise.resolve();
/** Called when the last request in flight ends (sendAlone waits for it). */
let onIdle: (() => void) | undefined;

/** The least requests in flight the window goes down to. */
const MIN_IN_FLIGHT = 2;

const lanes: Array<(slot: Slot) => void> = [];
const others: Array<(slot: Slot) => void> = [];
const waiting = {
  get length(): number {
    return lanes.length + others.length;
  },
  shift(): ((slot: Slot) => void) | undefined {
    return lanes.shift() ?? others.shift();
  },
};
/** The runner's pool, when this worker borrows from it. */
let lender: Borrower | undefined;

/**
 * Waits for one of this process's own request slots, or one the runner's pool lends; the function it
 * returns gives it back (once, whatever happens to the request). An own slot given back goes to the
 * longest waiting request (a write lane's first: `inLane`); a lent one goes back to the pool.
 */
export async function requestSlot(inLane = false): Promise<() => void> {
  // eslint-disable-next-line no-unmodified-loop-condition -- sendAlone sets and clears it while this waits
  while (aloneGate) await aloneGate;
  let slot: Slot = 'own';
  if (inFlight < httpPolicy().maxConcurrency && inFlight + lentInUse < window) inFlight += 1;
  else
    slot = await new Promise<Slot>((resolve) => {
      (inLane ? lanes : others).push(resolve);
      lender?.want(wanted());
    });
  if (slot === 'lent') lentInUse += 1;
  let given = false;
  return () => {
    if (given) return;
    given = true;
    endedSinceHalving += 1;
    if (slot === 'lent') {
      lentInUse -= 1;
      lender?.giveBack();
    } else {
      const next = !aloneGate && inFlight + lentInUse <= window ? waiting.shift() : undefined;
      if (!next) inFlight -= 1;
      else {
        lender?.want(wanted());
        next('own');
      }
    }
    // A slot given back while the window kept the requests waiting (lent slots above a halved window)
    // may be the one that lets them in: nothing else would wake them once every slot is back.
    if (waiting.length) wake();
    if (inFlight + lentInUse === 0) onIdle?.();
  };
}

/** How many slots to ask the pool for: the requests waiting, as far as the window lets them in. */
function wanted(): number {
  return Math.max(0, Math.min(waiting.length, window - inFlight - lentInUse));
}

/** A new run in this process: its pace is learnt anew (an earlier run's server may have been slower). */
export function resetPace(): void {
  window = Infinity;
  onTimeSince = endedSinceHalving = 0;
  halvedAt = -1;
}

/** Requests of this process in flight now (own slots and lent ones). */
export function requestsInFlight(): number {
  return inFlight + lentInUse;
}

/** An answer came back on time: after a window's worth of them, one more request may be in flight. */
export function answeredOnTime(): void {
  if (window === Infinity) return;
  onTimeSince += 1;
  if (onTimeSince < window) return;
  onTimeSince = 0;
  window = window + 1 >= httpPolicy().maxConcurrency ? Infinity : window + 1;
  wake();
}

/**
 * An answer came late (more than half its time-out) or not at all: the requests in flight are halved,
 * once for the requests of one burst (not again before those started after the last halving ended).
 */
export function answeredLate(): void {
  if (halvedAt >= 0 && endedSinceHalving < halvedAt) return;
  const now = Math.min(window, Math.max(inFlight + lentInUse, MIN_IN_FLIGHT));
  window = Math.max(MIN_IN_FLIGHT, Math.floor(now / 2));
  halvedAt = inFlight + lentInUse;
  endedSinceHalving = onTimeSince = 0;
}

/** The requests the window lets in now, when it grew or a request sent alone ended. */
function wake(): void {
  if (aloneGate) return;
  while (waiting.length && inFlight < httpPolicy().maxConcurrency && inFlight + lentInUse < window) {
    inFlight += 1;
    waiting.shift()!('own');
  }
  lender?.want(wanted());
}

/**
 * Sends a request alone: new requests of this process wait, and `send` starts once every request in
 * flight has ended; the requests to be sent alone take turns. The caller holds no slot while it waits.
 */
export function sendAlone<T>(send: () => Promise<T>): Promise<T> {
  const turn = aloneChain.then(async () => {
    let open!: () => void;
    aloneGate = new Promise<void>((resolve) => (open = resolve));
    try {
      if (inFlight + lentInUse > 0) await new Promise<void>((resolve) => (onIdle = resolve));
      onIdle = undefined;
      return await send();
    } finally {
      aloneGate = undefined;
      open();
      wake();
    }
  });
  aloneChain = turn.catch(() => undefined);
  return turn;
}

/** Where the workers reach the runner's pool: a socket in the run's state folder. */
export function poolAddress(stateDir: string): string {
  return process.platform === 'win32' ? `\\\\.\\pipe\\vds-slots-${path.basename(stateDir)}` : path.join(stateDir, 'slots.sock');
}

interface Member {
  /** Slots asked for and not lent yet. */
  wanted: number;
  /** Slots lent and not given back. */
  lent: number;
  send(line: string): void;
}

/** The slots the runner lends, in turn among the members that want some. */
export class SlotPool {
  private free: number;
  private readonly members: Member[] = [];
  private turn = 0;

  constructor(readonly size: number) {
    this.free = size;
  }

  /** The slots lent now, all members together. */
  get lent(): number {
    return this.size - this.free;
  }

  join(send: (line: string) => void): { receive(line: string): void; leave(): void } {
    const member: Member = { wanted: 0, lent: 0, send };
    this.members.push(member);
    return {
      receive: (line) => this.receive(member, line),
      // A worker gone (its end, or a crash) gives back what it held.
      leave: () => {
        const i = this.members.indexOf(member);
        if (i < 0) return;
        this.members.splice(i, 1);
        if (this.turn > i) this.turn -= 1;
        this.free += member.lent;
        this.lend();
      },
    };
  }

  private receive(member: Member, line: string): void {
    const n = Number(line.slice(1));
    if (!Number.isSafeInteger(n) || n <= 0) return;
    if (line[0] === '+') member.wanted += n;
    else if (line[0] === '~') member.wanted = Math.max(0, member.wanted - n);
    else if (line[0] === '-') {
      const back = Math.min(n, member.lent);
      member.lent -= back;
      this.free += back;
    }
    this.lend();
  }

  private lend(): void {
    const given = new Map<Member, number>();
    while (this.free > 0) {
      const member = this.next();
      if (!member) break;
      member.wanted -= 1;
      member.lent += 1;
      this.free -= 1;
      given.set(member, (given.get(member) ?? 0) + 1);
    }
    for (const [member, n] of given) member.send(`+${n}`);
  }

  /** The next member in turn that wants a slot. */
  private next(): Member | undefined {
    for (let k = 0; k < this.members.length; k++) {
      const i = (this.turn + k) % this.members.length;
      if (this.members[i].wanted > 0) {
        this.turn = (i + 1) % this.members.length;
        return this.members[i];
      }
    }
    return undefined;
  }
}

/** Calls `onLine` with each line the socket brings. */
function readLines(socket: net.Socket, onLine: (line: string) => void): void {
  let rest = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line) onLine(line);
  });
}

/** The runner's pool of `size` slots, served at `address` until closed. */
export async function lendSlots(address: string, size: number): Promise<{ pool: SlotPool; close(): Promise<void> }> {
  const pool = new SlotPool(size);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const member = pool.join((line) => {
      if (!socket.destroyed) socket.write(`${line}\n`);
    });
    readLines(socket, member.receive);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      sockets.delete(socket);
      member.leave();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address, () => resolve());
  });
  server.unref();
  return {
    pool,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A worker's side: asks the pool for as many slots as requests wait, and gives each back. */
class Borrower {
  /** Asked for and not lent yet. */
  private asked = 0;
  /** What the next message says (sent once per turn of the event loop). */
  private more = 0;
  private fewer = 0;
  private back = 0;
  private scheduled = false;
  private broken = false;

  constructor(
    private readonly socket: net.Socket,
    private readonly onBroken: (reason?: string) => void,
  ) {
    readLines(socket, (line) => this.lent(Number(line.slice(1))));
    socket.on('error', (err) => this.fail(err.message));
    // The runner closes it at the run's end: nothing to say.
    socket.on('close', () => this.fail());
  }

  /** As many slots asked for as requests wait. */
  want(waitingNow: number): void {
    if (this.broken) return;
    const delta = waitingNow - this.asked;
    if (delta > 0) this.more += delta;
    else if (delta < 0) this.fewer -= delta;
    this.asked = waitingNow;
    this.schedule();
  }

  giveBack(): void {
    if (this.broken) return;
    this.back += 1;
    this.schedule();
  }

  private lent(n: number): void {
    if (!Number.isSafeInteger(n) || n <= 0) return;
    this.asked = Math.max(0, this.asked - n);
    // requestSlot counts a lent slot in use when its request resumes: those handed out here are counted meanwhile.
    let handed = 0;
    for (let i = 0; i < n; i++) {
      const next = inFlight + lentInUse + handed < window ? waiting.shift() : undefined;
      if (next) {
        handed += 1;
        next('lent');
      } else this.giveBack(); // asked for a request an own slot served since, or the window closed
    }
    this.want(wanted());
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.broken) return;
      const lines = [this.back && `-${this.back}`, this.fewer && `~${this.fewer}`, this.more && `+${this.more}`].filter(Boolean);
      this.back = this.more = this.fewer = 0;
      if (lines.length) this.socket.write(`${lines.join('\n')}\n`);
    });
  }

  private fail(reason?: string): void {
    if (this.broken) return;
    this.broken = true;
    this.onBroken(reason);
  }
}

/**
 * This worker borrows from the runner's pool at `address` (its own slot still its own). If the pool
 * cannot be reached, or goes, the worker goes on with its own slot: slower, never over the cap.
 */
export function borrowSlotsFrom(address: string, onError: (reason: string) => void = () => undefined): void {
  const socket = net.createConnection(address);
  socket.unref();
  const borrower = new Borrower(socket, (reason) => {
    if (lender === borrower) lender = undefined;
    if (reason) onError(reason);
  });
  lender = borrower;
}
