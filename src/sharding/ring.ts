/**
 * The consistent-hashing ring with bounded loads (spec 3.3), as Argo CD's controller/sharding/consistent
 * package builds it.
 *
 * Guarantees:
 * - Members are "0".."R-1" with 1000 points each; a point's key is member + decimal index, no separator.
 * - Colliding keys ("1"+"10" and "11"+"0") share one position, owned by the member inserted last.
 * - `successor(h)` is the first point strictly greater than h, wrapping to the smallest.
 */
import { blake2bUint64 } from './hash.js';

export const REPLICATION_FACTOR = 1000;
/** Fixed in Argo CD's code: bound = ceil(avg * 1.25). */
export const LOAD_FACTOR = 1.25;

export class ConsistentRing {
  /** Sorted, distinct point positions. */
  private readonly positions: BigUint64Array;
  /** owners[i] is the member (shard number) owning positions[i]. */
  private readonly owners: Int32Array;

  constructor(readonly members: number) {
    const owner = new Map<bigint, number>();
    for (let m = 0; m < members; m++) {
      const prefix = String(m);
      for (let i = 0; i < REPLICATION_FACTOR; i++) owner.set(blake2bUint64(prefix + String(i)), m);
    }
    this.positions = BigUint64Array.from(owner.keys()).sort();
    this.owners = Int32Array.from(this.positions, (p) => owner.get(p)!);
  }

  get size(): number {
    return this.positions.length;
  }

  /** Index of the first point strictly greater than h, wrapping around to 0. */
  successorIndex(h: bigint): number {
    let lo = 0;
    let hi = this.positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.positions[mid]! <= h) lo = mid + 1;
      else hi = mid;
    }
    return lo === this.positions.length ? 0 : lo;
  }

  ownerAt(index: number): number {
    return this.owners[index]!;
  }

  /** Points per member, for reports and tests (collisions make some members own fewer than 1000). */
  pointsPerMember(): number[] {
    const counts = new Array<number>(this.members).fill(0);
    for (const o of this.owners) counts[o]!++;
    return counts;
  }
}

/**
 * Bounded-load assignment: clusters in the given order (callers pass them sorted by ID), each placed on
 * the first ring member clockwise from H(id) whose load is below the bound; loads are app counts.
 */
export class BoundedLoadBalancer {
  private readonly loads: Float64Array;
  private total = 0;

  constructor(private readonly ring: ConsistentRing) {
    this.loads = new Float64Array(ring.members);
  }

  /** The bound a member's load must stay below: ceil(max(1, floor((T+1)/R)) * 1.25). */
  bound(): number {
    let avg = Math.floor((Math.max(this.total, 0) + 1) / this.ring.members);
    if (avg === 0) avg = 1;
    return Math.ceil(avg * LOAD_FACTOR);
  }

  place(key: string, load: number): number {
    const bound = this.bound();
    let index = this.ring.successorIndex(blake2bUint64(key));
    // Walking one point at a time always ends: the least-loaded member is below the bound (spec 3.3).
    for (let steps = 0; steps <= this.ring.size; steps++) {
      const member = this.ring.ownerAt(index);
      if (this.loads[member]! < bound) {
        this.loads[member]! += load;
        this.total += load;
        return member;
      }
      index = index + 1 === this.ring.size ? 0 : index + 1;
    }
    throw new Error(`consistent-hashing: no ring member below load bound ${bound}`);
  }
}
