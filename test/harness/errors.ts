/** A mistake in a control-API request, an API request body or a harness option; answered with its status (400 unless given) and the message. */
export class HarnessInputError extends Error {
	override name = 'HarnessInputError';

	constructor(
		message: string,
		readonly status = 400,
	) {
		super(message);
	}
}
