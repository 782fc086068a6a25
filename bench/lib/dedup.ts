/**
 * Remove Duplicates' "items processed in previous executions" needs n8n's deduplication service,
 * which n8n (packages/cli, `DeduplicationHelper`) backs with the `processed_data` table. This is
 * that helper's "entries" mode (n8n 2.41: md5/base64 hash per value, a Set lookup, the newest
 * `maxEntries` kept) over an in-memory row. The row's value is kept as JSON text and parsed on
 * every read, stringified on every write, as the database column is; the database round trip
 * itself (SQLite/Postgres I/O) is not modelled, so this is a lower bound of n8n's cost.
 */
import { createHash } from 'crypto';
import { DataDeduplicationService } from 'n8n-core';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

interface EntriesValue {
	mode: string;
	data: string[];
}

class InMemoryDeduplicator implements IDataDeduplicator {
	private readonly rows = new Map<string, string>();

	private key(scope: DeduplicationScope, context: ICheckProcessedContextData): string {
		const dbContext = scope === 'node' ? `n:${context.node?.id ?? ''}` : '';
		return `${context.workflow.id}|${dbContext}`;
	}

	private read(key: string): EntriesValue | undefined {
		const text = this.rows.get(key);
		return text === undefined ? undefined : (JSON.parse(text) as EntriesValue);
	}

	private static hash(value: DeduplicationItemTypes): string {
		return createHash('md5').update(value.toString()).digest('base64');
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries')
			throw new Error('bench deduplicator: only mode "entries" is modelled');
		const key = this.key(scope, context);
		const stored = this.read(key);
		const hashed = items.map((item) => InMemoryDeduplicator.hash(item));
		if (!stored) {
			if (options.maxEntries) hashed.splice(0, hashed.length - options.maxEntries);
			this.rows.set(key, JSON.stringify({ mode: options.mode, data: hashed }));
			return { new: items, processed: [] };
		}
		const result: IDeduplicationOutput = { new: [], processed: [] };
		const seen = new Set(stored.data);
		hashed.forEach((hash, index) => {
			if (seen.has(hash)) {
				result.processed.push(items[index]);
			} else {
				result.new.push(items[index]);
				stored.data.push(hash);
			}
		});
		if (options.maxEntries) stored.data.splice(0, stored.data.length - options.maxEntries);
		this.rows.set(key, JSON.stringify(stored));
		return result;
	}

	async removeProcessed(): Promise<void> {
		throw new Error('bench deduplicator: removeProcessed is not modelled');
	}

	async clearAllProcessedItems(
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
	): Promise<void> {
		this.rows.delete(this.key(scope, context));
	}

	async getProcessedDataCount(
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<number> {
		if (options.mode !== 'entries') return 0;
		return this.read(this.key(scope, context))?.data.length ?? 0;
	}
}

let initialised = false;

/** Gives n8n-core's DataDeduplicationService (a process-wide singleton) the in-memory store. */
export async function useInMemoryDeduplication(): Promise<void> {
	if (initialised) return;
	initialised = true;
	await DataDeduplicationService.init(new InMemoryDeduplicator());
}
