/** Success envelopes (design.md §4). Errors are rendered by the error handler. */
export const ok = <T>(data: T) => ({ success: true as const, data });

export const message = (text: string) => ({ success: true as const, message: text });
