export const INBOX_HTML = '<!doctype html><title>inbox</title>';
