/** Apple's error bodies (stores.md §6) as the emulator answers them. */
export const NOT_AUTHORIZED = {
  status: '401',
  code: 'NOT_AUTHORIZED',
  title: 'Authentication credentials are missing or invalid.',
  detail:
    'Provide a properly configured and signed bearer token, and make sure that it has not expired. Learn more about Generating Tokens for API Requests https://developer.apple.com/go/?id=api-generating-tokens',
};

export class AscFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly source?: { pointer?: string; parameter?: string },
    /** Further errors Apple sends in the same body (after this one). */
    readonly also: AscFailure[] = [],
  ) {
    super(title);
  }
}

/** Apple's 404 for an id that is not a resource of the type. */
export const notFoundError = (type: string, id: string) =>
  new AscFailure(
    404,
    'NOT_FOUND',
    'The specified resource does not exist',
    `There is no resource of type '${type}' with id '${id}'`,
  );

export const stateError = (attribute: string) =>
  new AscFailure(
    409,
    'STATE_ERROR',
    'The request cannot be fulfilled because of the state of another resource.',
    `Attribute '${attribute}' cannot be edited at this time`,
    { pointer: `/data/attributes/${attribute}` },
  );
