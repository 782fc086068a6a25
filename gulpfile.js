// tsc compiles the TypeScript but does not copy the icons that the node and
// credential descriptions point at (`file:…svg`); n8n needs them beside the .js.
const { src, dest } = require('gulp');

function buildIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(
		dest('dist'),
	);
}

exports['build:icons'] = buildIcons;
