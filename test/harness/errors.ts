/** A mistake in a control-API request or harness option; answered with 400 and the message. */
export class HarnessInputError extends Error {
	override name = 'HarnessInputError';
}
