import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId, getTimeoutMs } from '../../shared/helpers/parameters';
import { DEFAULT_TIMEOUT_MS, headerValue } from '../../shared/transport';
import { errorForInterruptedDownload } from '../../shared/transport/errors';
import type { ExportFormat } from '../../shared/transport/types';
import { operationProperties, type Operation } from '../operation';

const properties: INodeProperties[] = [
	formIdLocator,
	{
		displayName: 'Format',
		name: 'format',
		type: 'options',
		default: 'csv',
		description: 'The file format of the export',
		options: [
			{ name: 'CSV', value: 'csv', description: 'One row per response, one column per question' },
			{ name: 'JSON', value: 'json', description: 'The responses as a JSON array' },
			{
				name: 'Merkle Tree',
				value: 'merkle',
				description: "A Merkle tree of the respondents' wallets, for allowlists (Business plan)",
			},
		],
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
	},
	timeoutOnlyOptions,
];

export const description = operationProperties('response', 'export', properties);

const FALLBACK_FILE: Record<ExportFormat, { extension: string; mimeType: string }> = {
	csv: { extension: 'csv', mimeType: 'text/csv' },
	json: { extension: 'json', mimeType: 'application/json' },
	merkle: { extension: 'merkle.json', mimeType: 'application/json' },
};

/**
 * Export: the API's file as binary data. The body is handed to n8n as a stream, so n8n's
 * binary data store decides whether it is ever held in memory (in filesystem mode it is not).
 */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	const format = this.getNodeParameter('format', itemIndex, 'csv') as ExportFormat;
	const binaryPropertyName = this.getNodeParameter(
		'binaryPropertyName',
		itemIndex,
		'data',
	) as string;

	const request = {
		path: ['forms', formId, 'export'],
		qs: { format },
		formId,
		exportFormat: format,
		itemIndex,
		timeoutMs: getTimeoutMs.call(this, itemIndex) ?? DEFAULT_TIMEOUT_MS,
	};
	const { body, headers } = await client.download(request);
	const fallback = FALLBACK_FILE[format] ?? FALLBACK_FILE.csv;
	const fileName =
		fileNameFromContentDisposition(headerValue(headers, 'content-disposition')) ??
		`${formId}-responses.${fallback.extension}`;
	const mimeType = headerValue(headers, 'content-type')?.split(';')[0].trim() || fallback.mimeType;

	const stream = body as unknown as Parameters<
		IExecuteFunctions['helpers']['prepareBinaryData']
	>[0];
	let binary: Awaited<ReturnType<IExecuteFunctions['helpers']['prepareBinaryData']>>;
	try {
		binary = await this.helpers.prepareBinaryData(stream, fileName, mimeType);
	} catch (error) {
		throw errorForInterruptedDownload(error, this.getNode(), request, request.timeoutMs) ?? error;
	}
	return [
		{
			json: {
				formId,
				format,
				fileName: binary.fileName ?? fileName,
				mimeType: binary.mimeType,
				fileSize: binary.fileSize,
			},
			binary: { [binaryPropertyName]: binary },
			pairedItem: { item: itemIndex },
		},
	];
};

/** The file name of a Content-Disposition header; RFC 6266 `filename*` wins over `filename`. */
export function fileNameFromContentDisposition(header: string | undefined): string | undefined {
	if (!header) return undefined;
	const extended = /filename\*\s*=\s*(?:UTF-8|ISO-8859-1)?'[^']*'([^;]+)/i.exec(header);
	if (extended) {
		try {
			return sanitizeFileName(decodeURIComponent(extended[1].trim()));
		} catch {
			// Fall through to the plain parameter.
		}
	}
	const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
	const name = plain ? (plain[1] ?? plain[2]).replace(/\\(.)/g, '$1').trim() : undefined;
	return name ? sanitizeFileName(name) : undefined;
}

/** A server-given name must not carry a path into n8n's file handling. */
function sanitizeFileName(name: string): string | undefined {
	const base = name.split(/[\\/]/).pop()?.trim();
	return base && base !== '.' && base !== '..' ? base : undefined;
}
