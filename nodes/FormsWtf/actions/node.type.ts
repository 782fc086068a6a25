import type { AllEntities } from 'n8n-workflow';

type NodeMap = {
	form: 'getAll' | 'get';
	response: 'getAll' | 'export';
};

export type FormsWtfType = AllEntities<NodeMap>;
