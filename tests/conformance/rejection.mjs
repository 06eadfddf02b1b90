/** Resolves with the error the promise rejects with; throws when it resolves instead. */
export async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}
