/**
 * One session of one user, named by both ids together so that no call can pass them in the wrong
 * order. For a service client's token, `userId` is the client's id and `sessionId` the token's row.
 */
export interface SessionRef {
  readonly userId: string;
  readonly sessionId: string;
}
