// Download links for every format of a result, in #downloads. A stub: the downloads branch
// brings the real module with this signature; the converter calls it whenever a result shows.
export function showDownloads(result: { id: string }, fileName: string): void {
  void result;
  void fileName;
}
