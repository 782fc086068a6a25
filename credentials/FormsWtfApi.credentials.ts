import type {
	IAuthenticateRuleResponseCode,
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

/**
 * A plain-http address of another host than this machine: the key would cross the network in
 * clear text. Matched by the editor (a `regex` display condition) to show a warning.
 */
const NON_LOCAL_PLAIN_HTTP =
	'^\\s*[hH][tT][tT][pP]://(?!(localhost|127\\.[0-9.]+|\\[::1\\])(:[0-9]+)?(/|$))';

/** A redirect the credential test meets: n8n is told not to follow it, so the key stays put. */
const REDIRECT_MESSAGE =
	'The Base URL redirects to another address. Put the address the API answers at (ending in /api/v1) in Base URL: the API key is sent only to the host of the Base URL, never on to where it points.';

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
		{
			displayName:
				'This address uses plain http:// on another machine: the API key and every response would cross the network unencrypted. Use https://, or http:// only for a server on this machine.',
			name: 'plainHttpWarning',
			type: 'notice',
			default: '',
			displayOptions: { show: { baseUrl: [{ _cnd: { regex: NON_LOCAL_PLAIN_HTTP } }] } },
		},
	];

	/**
	 * The key as a bearer header, trimmed (a key pasted with spaces or a line break around it is
	 * refused by strict servers as a different key). Every request made with this credential —
	 * the nodes', the credential test's, an HTTP Request node's — is told not to follow
	 * redirects, so that n8n never re-sends the key to where a server points; the nodes follow
	 * redirects within the Base URL's origin themselves.
	 */
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
		// A user name or password in the address would be sent as Basic auth in place of the key.
		if (/^\s*https?:\/\/[^/?#]*@/i.test(String(requestOptions.baseURL ?? requestOptions.url ?? '')))
			throw new UserError(
				'The Base URL contains a user name or password: remove the part before "@". Forms.wtf needs only the API key.',
			);
		return {
			...requestOptions,
			disableFollowRedirect: true,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${apiKey}` },
		};
	};

	// n8n shows the message of the first rule whose status matches, so each failure a user can
	// fix gets its own words instead of a bare status code.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{String($credentials.baseUrl).trim().replace(/\\/+$/, "")}}',
			url: '/forms',
			method: 'GET',
			disableFollowRedirect: true,
		},
		// n8n-workflow types the rules as all of one kind; n8n's credential test reads each rule by
		// its own type (responseCode on an error status, responseSuccessBody on a success).
		rules: [
			// A 200 that is not `{ "forms": [ … ] }` (a web page, another API) is not the Forms.wtf
			// API. n8n can only compare a field with a value: an array has `map`, nothing else here does.
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'forms.map',
					value: undefined,
					message:
						'This Base URL answered, but not with a list of forms: it is not the Forms.wtf API. It should end in /api/v1, for example https://forms.wtf/api/v1.',
				},
			},
			...[301, 302, 303, 307, 308].map((status) => ({
				type: 'responseCode' as const,
				properties: { value: status, message: REDIRECT_MESSAGE },
			})),
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
		] as unknown as IAuthenticateRuleResponseCode[],
	};
}
