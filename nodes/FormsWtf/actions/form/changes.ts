import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** The form's Description field, as Create and Update show it; `what` says what it does. */
export function formDescriptionField(what: string): INodeProperties {
	return {
		displayName: 'Description',
		name: 'description',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		description: what,
	};
}

/** A text field that must not be empty, trimmed. */
export function requiredText(
	this: IExecuteFunctions,
	name: string,
	label: string,
	itemIndex: number,
): string {
	const value = this.getNodeParameter(name, itemIndex, '');
	const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	if (text === '')
		throw new NodeOperationError(this.getNode(), `"${label}" is empty`, {
			description: `Enter a ${label.toLowerCase()}, or an expression that gives one.`,
			itemIndex,
		});
	return text;
}

/**
 * The Questions field: a JSON list of questions, as text or as a list an expression gave. Each
 * question an object; Forms.wtf checks the rest (type, label, options) and says what is wrong.
 */
export function parseQuestions(
	this: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
): IDataObject[] {
	let list: unknown = value;
	if (typeof value === 'string') {
		try {
			list = JSON.parse(value);
		} catch {
			list = undefined;
		}
	}
	if (
		!Array.isArray(list) ||
		!list.every((q) => typeof q === 'object' && q !== null && !Array.isArray(q))
	)
		throw new NodeOperationError(this.getNode(), '"Questions" must be a JSON list of questions', {
			description:
				'For example [{ "type": "SHORT_TEXT", "label": "Your name?", "required": true, "order": 0 }]. Form → Get shows a form’s questions in this shape.',
			itemIndex,
		});
	// Left at its default, the field would remove every question of the form (and the column of
	// every answer); a form needs at least one question to be answered anyway.
	if (list.length === 0)
		throw new NodeOperationError(this.getNode(), '"Questions" must be a JSON list of questions', {
			description:
				'It is empty, which would remove every question of the form. Give the questions the form should have, or remove Questions from Update Fields.',
			itemIndex,
		});
	return list as IDataObject[];
}
