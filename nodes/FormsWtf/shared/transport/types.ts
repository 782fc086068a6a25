import type { IDataObject } from 'n8n-workflow';

/** Shapes of the Forms.wtf API (forms-api.md). Fields the contract does not list pass through. */
export interface FormSummary extends IDataObject {
	id: string;
	title: string;
	slug: string;
	published: boolean;
	responseCount: number;
	createdAt: string;
	updatedAt: string;
}

export interface FormQuestion extends IDataObject {
	id: string;
	type: string;
	label: string;
	required: boolean;
	order: number;
}

export interface FormDetail extends IDataObject {
	id: string;
	title: string;
	slug: string;
	published: boolean;
	questions: FormQuestion[];
	gateRules: IDataObject[];
}

export interface FormAnswer extends IDataObject {
	questionId: string;
	questionLabel: string;
	// Documented as a string; the live service may send other types, which pass through untouched.
	value: IDataObject['value'];
}

export interface FormResponse extends IDataObject {
	id: string;
	walletAddress: string;
	ensName: string | null;
	submittedAt: string;
	durationSeconds: number;
	answers: FormAnswer[];
}

export interface ResponsesPage {
	responses: FormResponse[];
	total: number;
	hasMore: boolean;
}

export type ExportFormat = 'csv' | 'json' | 'merkle';
