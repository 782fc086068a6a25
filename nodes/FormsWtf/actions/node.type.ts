import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	account: 'get';
	form: 'getAll' | 'get' | 'create' | 'update' | 'publish' | 'unpublish' | 'delete';
	response: 'getAll' | 'export';
	webhook: 'getAll' | 'create' | 'delete';
};

export type FormsWtfType = AllEntities<NodeMap>;
