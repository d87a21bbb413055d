// The API Keys page: the "Copy key" button puts the new key on the clipboard.
const button = document.querySelector<HTMLButtonElement>('#copy-key');
const field = document.querySelector<HTMLInputElement>('#new-key');
const status = document.querySelector<HTMLElement>('#copy-status');

button?.addEventListener('click', async () => {
  if (!field || !status) return;
  try {
    await navigator.clipboard.writeText(field.value);
    status.textContent = 'Copied.';
  } catch {
    // No clipboard permission (plain http on another host): select it for Ctrl+C instead.
    field.select();
    status.textContent = 'Press Ctrl+C (or ⌘C) to copy the selected key.';
  }
});
