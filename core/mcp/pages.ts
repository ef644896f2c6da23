/** Every page of an MCP list request (tools/list, prompts/list, resources/list), following nextCursor. */
export async function allPages<T>(page: (params: { cursor?: string }) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const result = await page(cursor === undefined ? {} : { cursor });
    items.push(...result.items);
    cursor = result.nextCursor;
  } while (cursor);
  return items;
}
