// n8n loads this package through the "n8n" section of package.json; there is nothing to export here.
module.exports = {};
