import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteForm from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as publish from './publish.operation';
import * as unpublish from './unpublish.operation';
import * as update from './update.operation';

export { create, deleteForm as delete, get, getAll, publish, unpublish, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['form'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Create a new, empty and unpublished form with a title (and a description); add its questions with Update',
				action: 'Create a form',
			},
			{
				name: 'Delete',
				value: 'delete',
				description:
					'Delete a form for good, and all its responses with it: they cannot be recovered',
				action: 'Delete a form',
			},
			{
				name: 'Get',
				value: 'get',
				description:
					'Get one form by its ID, with its questions (ID, type, label, required, order) and gate rules',
				action: 'Get a form',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List the forms of the account, personal and team forms, each with its ID, title, slug, published and response count',
				action: 'Get many forms',
			},
			{
				name: 'Publish',
				value: 'publish',
				description: 'Publish a form: it starts accepting responses',
				action: 'Publish a form',
			},
			{
				name: 'Unpublish',
				value: 'unpublish',
				description: 'Unpublish a form: it stops accepting responses; the responses it has stay',
				action: 'Unpublish a form',
			},
			{
				name: 'Update',
				value: 'update',
				description:
					'Change a form’s title, description, published state or questions; a list of questions replaces the whole list',
				action: 'Update a form',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...get.description,
	...create.description,
	...update.description,
	...publish.description,
	...unpublish.description,
	...deleteForm.description,
];
