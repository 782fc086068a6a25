import type { IDataObject } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

/**
 * Static data as n8n stores it: WorkflowStaticDataService writes the workflow's static data
 * to a JSON column, so what comes back is a JSON round trip of it — no proxies, no
 * `__dataChanged` marker (non-enumerable), Dates as ISO strings, undefined values dropped.
 */
export function persistedCopy(staticData: IDataObject): IDataObject {
	return jsonParse<IDataObject>(JSON.stringify(staticData));
}
