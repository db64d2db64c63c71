// CopyButton (workbench/ui/forum.py): copy a forum post's text, or download it as a file.
function render({ model, el }) {
  el.classList.add("wb-copy");
  const copy = document.createElement("button");
  copy.className = "wb-copy-button jupyter-button";
  const save = document.createElement("button");
  save.className = "wb-save-button jupyter-button";
  const note = document.createElement("span");
  note.className = "wb-copy-note";
  note.style.marginLeft = "0.5em";
  const sync = () => {
    const text = model.get("text");
    copy.textContent = model.get("label");
    copy.disabled = !text;
    save.textContent = "Download " + (model.get("filename") || "");
    save.disabled = !text;
    save.style.display = model.get("filename") ? "" : "none";
  };
  copy.addEventListener("click", async () => {
    const ok = await copyText(model.get("text"));
    note.textContent = ok ? "Copied." : "Copying was blocked: select the text below and press Ctrl+C.";
    if (ok) {
      model.set("copies", model.get("copies") + 1);
      model.save_changes();
    }
  });
  save.addEventListener("click", () => {
    const blob = new Blob([model.get("text")], { type: model.get("mime") + ";charset=utf-8" });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = model.get("filename");
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  });
  model.on("change:text", () => { note.textContent = ""; sync(); });
  model.on("change:label", sync);
  model.on("change:filename", sync);
  sync();
  el.append(copy, save, note);
}

export default { render };
