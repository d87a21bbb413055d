// A picture chosen where it cannot be converted yet (the home page, or before logging in) is
// kept in IndexedDB, which holds a whole File up to the upload limit where sessionStorage's
// ~5 MB of text would not, and survives the trip through the log-in page. /try takes it once.

const DB_NAME = 'vectorize';
const STORE = 'pending';
const KEY = 'image';
/** Older than this, a kept picture is forgotten rather than converted by surprise. */
const MAX_AGE_MS = 60 * 60 * 1000;

interface Pending {
  blob: Blob;
  name: string;
  at: number;
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB did not open'));
  });
}

function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return openDb().then(
    (db) =>
      new Promise<T>((resolve, reject) => {
        const transaction = db.transaction(STORE, mode);
        const request = work(transaction.objectStore(STORE));
        transaction.oncomplete = () => {
          db.close();
          resolve(request.result);
        };
        transaction.onerror = () => {
          db.close();
          reject(transaction.error ?? new Error('IndexedDB transaction failed'));
        };
      }),
  );
}

export async function keepPending(file: File): Promise<void> {
  const pending: Pending = { blob: file, name: file.name || 'pasted-image.png', at: Date.now() };
  await run('readwrite', (store) => store.put(pending, KEY));
}

/** The kept picture, removed as it is read; undefined when there is none (or no IndexedDB). */
export async function takePending(): Promise<File | undefined> {
  if (typeof indexedDB === 'undefined') return undefined;
  try {
    const pending = (await run('readonly', (store) => store.get(KEY))) as Pending | undefined;
    if (!pending) return undefined;
    await run('readwrite', (store) => store.delete(KEY));
    if (Date.now() - pending.at > MAX_AGE_MS) return undefined;
    return new File([pending.blob], pending.name, { type: pending.blob.type });
  } catch {
    return undefined;
  }
}

/** The first image file of a drop or a paste, if any. */
export function imageOf(data: DataTransfer | null): File | undefined {
  if (!data) return undefined;
  const files = [...data.files];
  if (files.length === 0) {
    for (const item of data.items ?? []) {
      const file = item.kind === 'file' ? item.getAsFile() : null;
      if (file) files.push(file);
    }
  }
  return files.find((file) => file.type.startsWith('image/')) ?? files[0];
}

/** Drop and paste anywhere on the page hand their image to `take`. */
export function acceptImagesAnywhere(take: (file: File) => void, onDragState?: (dragging: boolean) => void): void {
  const hasFiles = (event: DragEvent) => [...(event.dataTransfer?.types ?? [])].includes('Files');
  document.addEventListener('dragover', (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    onDragState?.(true);
  });
  document.addEventListener('dragleave', (event) => {
    if (event.relatedTarget === null) onDragState?.(false);
  });
  document.addEventListener('drop', (event) => {
    const file = imageOf(event.dataTransfer);
    onDragState?.(false);
    if (!file) return;
    event.preventDefault();
    take(file);
  });
  document.addEventListener('paste', (event) => {
    const file = imageOf(event.clipboardData);
    if (!file) return;
    event.preventDefault();
    take(file);
  });
}
