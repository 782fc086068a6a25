import { rmSync } from 'fs';

export default function globalTeardown(): void {
	const folder = process.env.FORMSWTF_JEST_USER_FOLDER;
	if (folder) rmSync(folder, { recursive: true, force: true });
}
