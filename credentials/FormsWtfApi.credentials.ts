import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class FormsWtfApi implements ICredentialType {
	name = 'formsWtfApi';

	displayName = 'Forms.wtf API';

	icon: Icon = { light: 'file:formswtf.svg', dark: 'file:formswtf.dark.svg' };

	documentationUrl = 'https://github.com/formswtf/n8n-nodes-formswtf#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'fwtf_…',
			description:
				'Create a key in Forms.wtf under Settings → API Keys (Team plan or higher). It is shown only once.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://forms.wtf/api/v1',
			required: true,
			description:
				'Leave as is for Forms.wtf. Change it only for another Forms.wtf deployment; the address ends in /api/v1.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	// n8n shows the message of the first rule whose status matches, so each failure a user can
	// fix gets its own words instead of a bare status code.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{String($credentials.baseUrl).trim().replace(/\\/+$/, "")}}',
			url: '/forms',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key is invalid or has been revoked. Create a new key in Forms.wtf under Settings → API Keys.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The key works, but its plan does not include the API. The Forms.wtf API needs the Team plan or higher.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No Forms.wtf API at this Base URL. It should end in /api/v1, for example https://forms.wtf/api/v1.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 429,
					message:
						'Forms.wtf is rate limiting this key (60 requests per minute). Try again in a minute.',
				},
			},
		],
	};
}
