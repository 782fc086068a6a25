/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The merkle export: a StandardMerkleTree (@openzeppelin/merkle-tree, leaf encoding
 * ["address"]) over the form's respondents' hex wallets, dumped in its "standard-v1" format.
 *
 * The package hashes in pure JS (about 0.1-0.2 ms per wallet on a small VM), so:
 * - the tree is built in a worker thread, keeping the server answering other requests;
 * - a built dump is cached until the form's responses (or the order setting) change;
 * - forms with more than `merkleMaxLeaves` hex wallets are refused with a clear 500 instead
 *   of blocking for minutes and gigabytes (a million wallets measured ~3 min and ~2.8 GB).
 */
import { Worker } from 'worker_threads';
import type { HarnessForm } from './data';
import type { ResponseOrder } from './types';

export interface MerkleDump {
	format: 'standard-v1';
	leafEncoding: string[];
	tree: string[];
	values: { value: [string]; treeIndex: number }[];
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export type MerkleResult =
	| { kind: 'dump'; dump: MerkleDump }
	/** No response has a hex wallet: a Merkle tree needs at least one leaf. */
	| { kind: 'empty' }
	| { kind: 'tooLarge'; limit: number };

/**
 * Leaves, in response order: each distinct hex wallet once (first occurrence, compared
 * case-insensitively). `anon_<uuid>` and any other non-address wallet is left out.
 * Stops early (returns null) once more than `limit` are found.
 */
export function merkleWallets(
	form: HarnessForm,
	order: ResponseOrder,
	limit: number,
): string[] | null {
	const seen = new Set<string>();
	const wallets: string[] = [];
	for (const record of form.store.snapshot(order)) {
		const wallet = form.store.walletOf(record);
		if (!HEX_ADDRESS.test(wallet)) continue;
		const key = wallet.toLowerCase();
		if (seen.has(key)) continue;
		seen.add(key);
		wallets.push(wallet);
		if (wallets.length > limit) return null;
	}
	return wallets;
}

/** Plain JS run in the worker: no TypeScript loader is needed there. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('worker_threads');
const { StandardMerkleTree } = require(workerData.modulePath);
const tree = StandardMerkleTree.of(workerData.wallets.map((w) => [w]), ['address']);
parentPort.postMessage(tree.dump());
`;

interface CacheEntry {
	version: number;
	order: ResponseOrder;
	result: Promise<MerkleResult>;
}

export class MerkleBuilder {
	private readonly cache = new WeakMap<HarnessForm, CacheEntry>();
	private readonly workers = new Set<Worker>();
	private readonly modulePath = require.resolve('@openzeppelin/merkle-tree');

	constructor(private readonly maxLeaves: number) {}

	build(form: HarnessForm, order: ResponseOrder): Promise<MerkleResult> {
		const cached = this.cache.get(form);
		if (cached !== undefined && cached.version === form.store.version && cached.order === order)
			return cached.result;
		const result = this.compute(form, order);
		const entry: CacheEntry = { version: form.store.version, order, result };
		this.cache.set(form, entry);
		// A failed build must not stay cached.
		result.catch(() => {
			if (this.cache.get(form) === entry) this.cache.delete(form);
		});
		return result;
	}

	private async compute(form: HarnessForm, order: ResponseOrder): Promise<MerkleResult> {
		const wallets = merkleWallets(form, order, this.maxLeaves);
		if (wallets === null) return { kind: 'tooLarge', limit: this.maxLeaves };
		if (wallets.length === 0) return { kind: 'empty' };
		return { kind: 'dump', dump: await this.runWorker(wallets) };
	}

	private runWorker(wallets: string[]): Promise<MerkleDump> {
		return new Promise((resolve, reject) => {
			const worker = new Worker(WORKER_SOURCE, {
				eval: true,
				workerData: { modulePath: this.modulePath, wallets },
			});
			this.workers.add(worker);
			worker.once('message', (dump: MerkleDump) => resolve(dump));
			worker.once('error', reject);
			worker.once('exit', (code) => {
				this.workers.delete(worker);
				if (code !== 0) reject(new Error(`merkle worker exited with code ${code}`));
			});
		});
	}

	async close(): Promise<void> {
		await Promise.all([...this.workers].map((w) => w.terminate()));
	}
}
