/** Routes whose body is optional: no body means "all defaults", validated as `{}`. */
export async function optionalBody(request: { body: unknown }): Promise<void> {
  request.body ??= {};
}
