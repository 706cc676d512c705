/**
 * Import: files dropped anywhere (or picked) are staged, previewed per file and session (a dry run), imported
 * on confirmation with progress and cancel, and reported per session.
 */
import { useId, useMemo, useRef, type ReactNode } from 'react';
import { MAX_STAGED_BYTES, type FilePreview, type ImportResult } from '../../../shared/ipc.js';
import { ReportCells, ReportHeaderCells, ReportSessionCell } from '../components/ReportTable.js';
import { Icon, Loading, PageHeader, ProgressBar } from '../components/ui.js';
import { useFormat } from '../format.js';
import { errorTitle, useT, type MessageKey } from '../i18n.js';
import { selectedSessions, sessionKey, useImportFlow, type ImportMode, type StagedFileEntry } from '../importFlow.js';
import { hrefFor } from '../router.js';

const STATUS_KEYS: Record<StagedFileEntry['status'], MessageKey> = {
  reading: 'import.file.reading',
  sending: 'import.file.staging',
  staged: 'import.file.staged',
  error: 'import.file.error',
};

function DropZone({ disabled }: { disabled: boolean }): ReactNode {
  const t = useT();
  const flow = useImportFlow();
  const input = useRef<HTMLInputElement>(null);
  return (
    <section className="dropzone" aria-labelledby="dropzone-title">
      <div className="dropzone__icon">
        <Icon name="import" size={28} />
      </div>
      <div className="dropzone__text">
        <h2 id="dropzone-title" className="dropzone__title">
          {t('import.dropTitle')}
        </h2>
        <p className="muted">{t('import.dropBody')}</p>
      </div>
      <button type="button" className="button" onClick={() => input.current?.click()} disabled={disabled}>
        {t('import.choose')}
      </button>
      <input
        ref={input}
        type="file"
        multiple
        className="visually-hidden"
        tabIndex={-1}
        aria-label={t('import.chooseLabel')}
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          event.target.value = '';
          flow.addFiles(files);
        }}
      />
    </section>
  );
}

function FileRow({ file, removable }: { file: StagedFileEntry; removable: boolean }): ReactNode {
  const t = useT();
  const format = useFormat();
  const flow = useImportFlow();
  return (
    <li className="file-row" data-status={file.status}>
      <Icon name="file" size={18} />
      <span className="file-row__name">{file.name}</span>
      <span className="muted small">{format.bytes(file.size)}</span>
      <span className={`status status--${file.status}`}>
        {(file.status === 'reading' || file.status === 'sending') && <span className="spinner spinner--small" aria-hidden="true" />}
        {t(STATUS_KEYS[file.status])}
      </span>
      {file.error && (
        <p className="file-row__error">
          <strong>{errorTitle(t, file.error.code)}</strong>{' '}
          {file.size > MAX_STAGED_BYTES ? t('import.file.tooLarge', { name: file.name, max: format.bytes(MAX_STAGED_BYTES) }) : file.error.message}
        </p>
      )}
      {removable && (
        <button type="button" className="icon-button" onClick={() => flow.removeFile(file.key)} aria-label={t('import.removeFile', { name: file.name })} title={t('import.removeFile', { name: file.name })}>
          ×
        </button>
      )}
    </li>
  );
}

function FileList(): ReactNode {
  const t = useT();
  const flow = useImportFlow();
  // A file can be staged and still be unreadable; the preview says so (the reason is shown in its table).
  const unreadable = new Set((flow.previews ?? []).filter((preview) => preview.error).map((preview) => preview.fileId));
  return (
    <section className="card" aria-labelledby="files-title">
      <h2 id="files-title" className="card__title">
        {t('import.files')}
      </h2>
      <ul className="file-list">
        {flow.files.map((entry) => (
          <FileRow key={entry.key} file={entry.fileId && unreadable.has(entry.fileId) ? { ...entry, status: 'error' } : entry} removable={!flow.running && !flow.result} />
        ))}
      </ul>
    </section>
  );
}

function FileGroupHeader({ preview, columns }: { preview: FilePreview; columns: number }): ReactNode {
  const t = useT();
  return (
    <tr className="group-row">
      <th scope="colgroup" colSpan={columns}>
        <span className="group-row__name">
          <Icon name="file" size={15} />
          {preview.name}
        </span>
        {preview.error ? (
          <span className="group-row__error" role="note">
            <strong>{errorTitle(t, preview.error.code)}</strong> {preview.error.message}
          </span>
        ) : (
          <span className="muted small">
            {t('import.fileSessions', { format: preview.format ?? '?', n: preview.sessions.length })}
            {preview.encoding && ` · ${t('import.readAs', { encoding: preview.encoding })}`}
          </span>
        )}
      </th>
    </tr>
  );
}

/** The damaged conversations or lines of a file that the import leaves out, each with its reason. */
function SkippedRows({ skipped, columns }: { skipped: FilePreview['skipped']; columns: number }): ReactNode {
  const t = useT();
  if (!skipped || skipped.length === 0) return null;
  return (
    <tr className="skipped-row">
      <td colSpan={columns}>
        <details open={skipped.length <= 3}>
          <summary>
            <Icon name="alert" size={14} /> {t('import.skippedParts', { n: skipped.length })}
          </summary>
          <ul className="skipped-list">
            {skipped.map((part, i) => (
              <li key={i}>
                <strong>{part.line !== undefined ? t('import.skippedLine', { line: part.line }) : part.session !== undefined ? t('import.skippedConversation', { id: part.session }) : t('import.skippedPart')}</strong>{' '}
                <span className="muted">{part.error}</span>
              </li>
            ))}
          </ul>
        </details>
      </td>
    </tr>
  );
}

function PreviewTable(): ReactNode {
  const t = useT();
  const flow = useImportFlow();
  const previews = flow.previews ?? [];
  const columns = 10;
  return (
    <div className="table-scroll">
      <table className="table table--compact">
        <caption className="visually-hidden">{t('import.preview.caption')}</caption>
        <thead>
          <tr>
            <th scope="col" className="check-column">
              {t('import.col.include')}
            </th>
            <th scope="col" className="session-column">
              {t('import.col.session')}
            </th>
            <ReportHeaderCells />
          </tr>
        </thead>
        {previews.map((preview) => (
          <tbody key={preview.fileId}>
            <FileGroupHeader preview={preview} columns={columns} />
            <SkippedRows skipped={preview.skipped} columns={columns} />
            {preview.sessions.map((session) => {
              const included = !flow.excluded.has(sessionKey(preview.fileId, session.sessionId));
              return (
                <tr key={session.sessionId} className={included ? undefined : 'row--excluded'}>
                  <td className="check-column">
                    <input
                      type="checkbox"
                      checked={included}
                      disabled={flow.running}
                      onChange={() => flow.toggleSession(preview.fileId, session.sessionId)}
                      aria-label={t('import.includeSession', { title: session.title || session.sessionId })}
                    />
                  </td>
                  <th scope="row">
                    <ReportSessionCell report={session} title={session.title} link={false} />
                  </th>
                  <ReportCells report={session} />
                </tr>
              );
            })}
          </tbody>
        ))}
      </table>
    </div>
  );
}

function PreviewSection(): ReactNode {
  const t = useT();
  const flow = useImportFlow();
  const modeId = useId();
  const chosen = selectedSessions(flow);
  const totals = chosen.reduce(
    (sum, { session }) => ({ new: sum.new + session.new, updated: sum.updated + session.updated, skipped: sum.skipped + session.skipped, embeddings: sum.embeddings + session.embeddingsComputed }),
    { new: 0, updated: 0, skipped: 0, embeddings: 0 },
  );
  const nothingNew = chosen.length > 0 && totals.new === 0 && totals.updated === 0;
  return (
    <section className="card" aria-labelledby="preview-title">
      <header className="card__header">
        <div>
          <h2 id="preview-title" className="card__title">
            {t('import.preview.title')}
          </h2>
          <p className="card__subtitle">{t('import.preview.subtitle')}</p>
        </div>
      </header>
      {flow.previewing && <Loading label={t('import.preview.checking')} />}
      {flow.previewFailed && !flow.previewing && (
        <div className="load-failed">
          <p>{t('errors.loadFailed')}</p>
          <button type="button" className="button" onClick={flow.retryPreview}>
            {t('common.retry')}
          </button>
        </div>
      )}
      {flow.previews && (
        <>
          <PreviewTable />
          <p className="totals" aria-live="polite">
            {nothingNew ? t('import.nothingNew') : t('import.totals', { sessions: chosen.length, ...totals })}
          </p>
          {!flow.running && (
            <div className="import-actions">
              <fieldset className="options">
                <legend className="visually-hidden">{t('import.options')}</legend>
                <div className="field field--inline">
                  <label htmlFor={modeId} className="field__label">
                    {t('import.mode')}
                  </label>
                  <select id={modeId} className="input" value={flow.mode} onChange={(event) => flow.setMode(event.target.value as ImportMode)}>
                    <option value="incremental">{t('mode.incremental')}</option>
                    <option value="skip-if-archived">{t('mode.skip-if-archived')}</option>
                  </select>
                </div>
                <label className="checkbox">
                  <input type="checkbox" checked={flow.syncDeletes} onChange={(event) => flow.setSyncDeletes(event.target.checked)} />
                  <span>
                    {t('import.syncDeletes')}
                    {flow.syncDeletes && <span className="muted small block">{t('import.syncDeletesHint')}</span>}
                  </span>
                </label>
              </fieldset>
              <div className="button-row">
                <button type="button" className="button" onClick={flow.reset}>
                  {t('import.clear')}
                </button>
                <button type="button" className="button button--primary" onClick={flow.run} disabled={chosen.length === 0 || flow.staging || flow.previewing}>
                  {t('import.confirm', { n: chosen.length })}
                </button>
              </div>
            </div>
          )}
        </>
      )}
    </section>
  );
}

function ProgressSection(): ReactNode {
  const t = useT();
  const format = useFormat();
  const flow = useImportFlow();
  const progress = flow.progress;
  if (!progress) return null;
  const phase = t(`import.phase.${progress.phase}`);
  const detail = [
    progress.fileCount > 1 ? t('import.progressFile', { index: progress.fileIndex + 1, count: progress.fileCount }) : null,
    progress.sessionsTotal > 0 ? t('import.progressSessions', { done: progress.sessionsDone, total: progress.sessionsTotal }) : null,
    progress.total > 0 && progress.phase !== 'done' ? `${phase} ${format.number(progress.done)} / ${format.number(progress.total)}` : phase,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <section className="card progress-card" aria-labelledby="progress-title">
      <div className="progress-card__head">
        <h2 id="progress-title" className="card__title">
          {t('import.progress')}
        </h2>
        <span className="progress-card__pct">{format.percent(progress.fraction)}</span>
      </div>
      <ProgressBar value={progress.fraction} label={t('import.progress')} valueText={detail} />
      <div className="progress-card__foot">
        <p className="muted small">{detail}</p>
        <button type="button" className="button" onClick={flow.cancel} disabled={flow.cancelling}>
          {flow.cancelling ? t('import.cancelling') : t('import.cancel')}
        </button>
      </div>
    </section>
  );
}

function ResultSection({ result }: { result: ImportResult }): ReactNode {
  const t = useT();
  const flow = useImportFlow();
  const titles = useMemo(() => new Map((flow.previews ?? []).flatMap((preview) => preview.sessions.map((session) => [session.sessionId, session.title ?? session.sessionId] as const))), [flow.previews]);
  const reports = result.files.flatMap((file) => file.reports);
  const totals = reports.reduce((sum, report) => ({ new: sum.new + report.new, updated: sum.updated + report.updated, skipped: sum.skipped + report.skipped, deleted: sum.deleted + report.deleted }), {
    new: 0,
    updated: 0,
    skipped: 0,
    deleted: 0,
  });
  const nearDuplicates = reports.reduce((sum, report) => sum + (report.nearDuplicates ?? 0), 0);
  return (
    <section className="card" aria-labelledby="result-title">
      <header className="card__header">
        <div>
          <h2 id="result-title" className="card__title">
            {t('import.doneTitle')}
          </h2>
          <p role="status" className={result.cancelled ? 'notice' : 'success'}>
            {result.cancelled ? t('import.cancelled') : t('import.doneSummary', { sessions: reports.length, ...totals })}
          </p>
          {nearDuplicates > 0 && (
            <p className="notice">
              {t('import.nearDuplicates', { n: nearDuplicates })} <a href={hrefFor({ name: 'duplicates' })}>{t('import.reviewDuplicates')}</a>
            </p>
          )}
        </div>
        <button type="button" className="button button--primary" onClick={flow.reset}>
          {t('import.again')}
        </button>
      </header>
      {result.files.length > 0 && (
        <div className="table-scroll">
          <table className="table table--compact">
            <caption className="visually-hidden">{t('import.reportsCaption')}</caption>
            <thead>
              <tr>
                <th scope="col" className="session-column">
                  {t('import.col.session')}
                </th>
                <ReportHeaderCells withDuration />
              </tr>
            </thead>
            {result.files.map((file) => (
              <tbody key={file.fileId}>
                <FileGroupHeader preview={{ fileId: file.fileId, name: file.name, format: file.format, error: file.error, sessions: file.reports }} columns={10} />
                <SkippedRows skipped={file.skipped} columns={10} />
                {file.reports.map((report) => (
                  <tr key={report.sessionId}>
                    <th scope="row">
                      <ReportSessionCell report={report} title={titles.get(report.sessionId)} link />
                    </th>
                    <ReportCells report={report} withDuration />
                  </tr>
                ))}
              </tbody>
            ))}
          </table>
        </div>
      )}
    </section>
  );
}

export function ImportView(): ReactNode {
  const t = useT();
  const flow = useImportFlow();
  return (
    <div className="page">
      <PageHeader title={t('import.title')} subtitle={t('import.subtitle')} />
      {flow.busyNotice && (
        <p className="notice" role="status">
          {t('import.busy')}
        </p>
      )}
      {!flow.running && !flow.result && <DropZone disabled={false} />}
      {flow.files.length > 0 && !flow.result && <FileList />}
      {(flow.previews || flow.previewing || flow.previewFailed) && !flow.result && <PreviewSection />}
      {flow.running && <ProgressSection />}
      {flow.result && <ResultSection result={flow.result} />}
    </div>
  );
}
