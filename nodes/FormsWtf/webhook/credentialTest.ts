import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

/**
 * Forms.wtf has no API that knows a webhook's secret, so the credential cannot be checked
 * against the service; this checks what can be checked here, and says how to check the rest.
 */
export async function testWebhookSecret(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const secret = credential.data?.secret;
	if (typeof secret !== 'string' || secret === '')
		return { status: 'Error', message: 'Enter the secret you gave the webhook in Forms.wtf.' };
	if (secret.trim() !== secret)
		return {
			status: 'Error',
			message:
				'The secret starts or ends with a space. Copy it again from the webhook in Forms.wtf, without spaces around it.',
		};
	return {
		status: 'OK',
		message:
			'Saved. Forms.wtf cannot be asked whether it matches: submit a test response and see that the workflow starts.',
	};
}
