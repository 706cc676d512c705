/**
 * "Overwrite from file…": a deliberate replacement of one session with what a file holds. The person picks or
 * drops a file, sees what is archived now against what the file holds (from a dry run), confirms, and sees
 * the report. Nothing is written before the confirmation.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { SaveReport } from '../../../shared/domain.js';
import type { ErrorInfo } from '../../../shared/errors.js';
import { MemoryApiError, type EventMap } from '../../../shared/ipc.js';
import { toErrorInfo, useReportError } from '../alerts.js';
import { Modal } from '../components/Modal.js';
import { ReportTable } from '../components/ReportTable.js';
import { ProgressBar } from '../components/ui.js';
import { useFileDrop } from '../drop.js';
import { stageFile } from '../files.js';
import { errorTitle, useT } from '../i18n.js';
import { progressFraction } from '../importFlow.js';
import { useApi, useStoreVersion } from '../memory.js';

export interface OverwriteTarget {
  sessionId: string;
  title: string;
  messageCount: number;
  chunkCount: number;
}

type Step =
  | { kind: 'choose' }
  | { kind: 'checking'; name: string }
  | { kind: 'failed'; name: string; error: ErrorInfo }
  | { kind: 'notInFile'; name: string; ids: string[] }
  | { kind: 'confirm'; name: string; fileId: string; incoming: SaveReport }
  | { kind: 'running'; name: string; progress: EventMap['onSaveProgress'] | null; cancelling: boolean }
  | { kind: 'done'; report: SaveReport | null; cancelled: boolean };

export function OverwriteDialog({ target, onClose }: { target: OverwriteTarget; onClose: () => void }): ReactNode {
  const t = useT();
  const api = useApi();
  const report = useReportError();
  const { storeChanged } = useStoreVersion();
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [step, setStep] = useState<Step>({ kind: 'choose' });
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const set = (next: Step): void => {
    if (mounted.current) setStep(next);
  };

  const check = async (file: File): Promise<void> => {
    set({ kind: 'checking', name: file.name });
    try {
      const staged = await stageFile(api, file);
      // Preview the overwrite itself, so the confirmation can say exactly what would be removed.
      const [preview] = await api['import:preview']({ fileIds: [staged.fileId], mode: 'overwrite' });
      if (!preview) throw new Error(`No preview for ${file.name}.`);
      if (preview.error) {
        set({ kind: 'failed', name: file.name, error: preview.error });
        return;
      }
      const incoming = preview.sessions.find((session) => session.sessionId === target.sessionId);
      if (!incoming) {
        set({ kind: 'notInFile', name: file.name, ids: preview.sessions.map((session) => session.title || session.sessionId) });
        return;
      }
      set({ kind: 'confirm', name: file.name, fileId: staged.fileId, incoming });
    } catch (error) {
      report(error);
      set({ kind: 'failed', name: file.name, error: toErrorInfo(error) });
    }
  };

  const running = step.kind === 'running';
  const choosing = step.kind === 'choose' || step.kind === 'failed' || step.kind === 'notInFile' || step.kind === 'confirm';
  useFileDrop(
    {
      label: t('drop.overlayOverwrite'),
      onFiles: (files) => {
        const [file] = files;
        if (file && choosing) void check(file);
      },
    },
    !running && step.kind !== 'done',
  );

  const confirm = async (fileId: string, name: string): Promise<void> => {
    setStep({ kind: 'running', name, progress: null, cancelling: false });
    const unsubscribe = api.on('onSaveProgress', (progress) => {
      if (progress.sessionId !== target.sessionId) return;
      setStep((current) => (current.kind === 'running' ? { ...current, progress } : current));
    });
    try {
      const result = await api['import:run']({ fileIds: [fileId], mode: 'overwrite', sessionIds: [target.sessionId] });
      const file = result.files[0];
      if (file?.error) {
        report(new MemoryApiError(file.error.code, file.error.message));
        set({ kind: 'failed', name, error: file.error });
        return;
      }
      set({ kind: 'done', report: file?.reports.find((entry) => entry.sessionId === target.sessionId) ?? null, cancelled: result.cancelled });
    } catch (error) {
      const info = toErrorInfo(error);
      if (info.code === 'cancelled') {
        set({ kind: 'done', report: null, cancelled: true });
      } else {
        report(error);
        set({ kind: 'failed', name, error: info });
      }
    } finally {
      unsubscribe();
      storeChanged();
    }
  };

  const cancel = (): void => {
    setStep((current) => (current.kind === 'running' ? { ...current, cancelling: true } : current));
    api['import:cancel']({}).catch(report);
  };

  const picker = (
    <div className="file-pick">
      <button type="button" className="button" onClick={() => input.current?.click()}>
        {step.kind === 'choose' ? t('overwrite.choose') : t('overwrite.otherFile')}
      </button>
      <label htmlFor={inputId} className="visually-hidden">
        {t('overwrite.fileLabel')}
      </label>
      <input
        id={inputId}
        ref={input}
        type="file"
        className="visually-hidden"
        tabIndex={-1}
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (file) void check(file);
        }}
      />
      <span className="muted small">{t('overwrite.dropHint')}</span>
    </div>
  );

  let body: ReactNode;
  let footer: ReactNode = (
    <button type="button" className="button" onClick={onClose}>
      {t('common.cancel')}
    </button>
  );
  switch (step.kind) {
    case 'choose':
      body = (
        <>
          <p>{t('overwrite.intro')}</p>
          {picker}
        </>
      );
      break;
    case 'checking':
      body = (
        <div className="loading" role="status">
          <span className="spinner" aria-hidden="true" />
          {t('overwrite.checking', { name: step.name })}
        </div>
      );
      break;
    case 'failed':
      body = (
        <>
          <p className="inline-error">
            <strong>{errorTitle(t, step.error.code)}</strong> {t('import.fileError', { name: step.name, message: step.error.message })}
          </p>
          {picker}
        </>
      );
      break;
    case 'notInFile':
      body = (
        <>
          <p className="inline-error">{t('overwrite.notInFile', { name: step.name, ids: step.ids.length > 0 ? step.ids.join(', ') : t('overwrite.noSessions') })}</p>
          {picker}
        </>
      );
      break;
    case 'confirm': {
      const { incoming } = step;
      body = (
        <>
          <dl className="compare">
            <div className="compare__side">
              <dt>{t('overwrite.current')}</dt>
              <dd>{t('overwrite.currentValue', { messages: target.messageCount, chunks: target.chunkCount })}</dd>
            </div>
            <div className="compare__arrow" aria-hidden="true">
              →
            </div>
            <div className="compare__side">
              <dt>{t('overwrite.incoming', { name: step.name })}</dt>
              <dd>{t('overwrite.incomingValue', { total: incoming.total, new: incoming.new, updated: incoming.updated, skipped: incoming.skipped })}</dd>
            </div>
          </dl>
          <p className="warning-box">
            {t('overwrite.consequence', { messages: target.messageCount, chunks: target.chunkCount, total: incoming.total })}
            {incoming.deleted > 0 && <> {t('overwrite.lost', { deleted: incoming.deleted })}</>}
          </p>
          {picker}
        </>
      );
      const { fileId, name } = step;
      footer = (
        <>
          <button type="button" className="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="button" className="button button--danger" onClick={() => void confirm(fileId, name)}>
            {t('overwrite.confirm')}
          </button>
        </>
      );
      break;
    }
    case 'running': {
      const progress = step.progress;
      const fraction = progress ? progressFraction({ ...progress, sessionsDone: 0, sessionsTotal: 1 }) : null;
      body = (
        <div className="stack">
          <p>{t('overwrite.running')}</p>
          <ProgressBar value={fraction} label={t('import.progress')} valueText={progress ? `${t(`import.phase.${progress.phase}`)} ${progress.done} / ${progress.total}` : undefined} />
          {progress && (
            <p className="muted small">
              {t(`import.phase.${progress.phase}`)} · {progress.done} / {progress.total}
            </p>
          )}
        </div>
      );
      footer = (
        <button type="button" className="button" onClick={cancel} disabled={step.cancelling}>
          {step.cancelling ? t('import.cancelling') : t('import.cancel')}
        </button>
      );
      break;
    }
    case 'done':
      body = (
        <div className="stack">
          <p role="status" className={step.cancelled ? 'notice' : 'success'}>
            {step.cancelled ? t('overwrite.cancelled') : t('overwrite.done')}
          </p>
          {step.report && <ReportTable reports={[step.report]} caption={t('report.caption')} titles={new Map([[target.sessionId, target.title]])} />}
        </div>
      );
      footer = (
        <button type="button" className="button button--primary" onClick={onClose}>
          {t('common.done')}
        </button>
      );
      break;
  }

  return (
    <Modal title={t('overwrite.title', { title: target.title })} onClose={onClose} closable={!running} footer={footer}>
      {body}
    </Modal>
  );
}
