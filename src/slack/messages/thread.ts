/** A job's thread: its status message, waits and failures. */
export const threadEn = {
  // The status message in the job's thread.
  "status.queued": "Getting ready to transcribe {file}…",
  "status.queued_waiting.one":
    "{file} is waiting its turn: 1 recording is ahead of it. Nothing is lost, it starts on its own.",
  "status.queued_waiting.other":
    "{file} is waiting its turn: {count} recordings are ahead of it. Nothing is lost, it starts on its own.",
  "status.downloading": "Downloading {file}…",
  "status.preparing": "Taking the sound out of {file} so the Note Service can use it…",
  "status.preparing_percent":
    "Taking the sound out of {file} so the Note Service can use it… {percent}%",
  "status.transcribing": "Transcribing {file}…",
  "status.transcribing_percent": "Transcribing {file}… {percent}%",
  "status.naming.one": "Heard 1 speaker. Name them so the notes use real names.",
  "status.naming.other": "Heard {count} speakers. Name them so the notes use real names.",
  "status.naming.more": "…and {count} more",
  "status.writing": "Writing the notes…",
  "status.delivering": "Posting the notes…",
  "status.done": "Notes ready.",
  "status.canvas": ":memo: <{url}|The notes as a canvas> — the channel can read it.",
  "status.no_canvas.not_allowed":
    "No canvas: this workspace does not let apps make canvases, so the notes are only in this thread.",
  "status.no_canvas.free_plan":
    "No canvas: this workspace's plan does not let apps make canvases, so the notes are only in this thread.",
  "status.no_canvas.missing_scope":
    "No canvas: the app lacks the canvases:write permission (an admin can reinstall it), so the notes are only in this thread.",
  "status.no_canvas.too_large":
    "No canvas: the notes are longer than a canvas holds, so they are only in this thread.",
  "status.no_canvas.refused":
    "No canvas: Slack would not make or share one for these notes, so they are only in this thread.",
  "status.canvas_dm": ":memo: <{url}|The notes as a canvas> — shared with you.",
  "status.failed": "Could not make notes from {file}.",
  "status.canceled": "Canceled by {user}.",
  "status.elapsed": "Elapsed {time}",
  "status.took": "Took {time}",
  "status.retry_hint": "Retry picks up where it stopped.",

  // The bot's store lost its data (Redis restarted empty): the job is gone.
  "status.lost":
    "This recording's notes were lost when the bot's storage was reset; upload it again.",

  // Why an active job waits before trying its step again.
  "status.waiting.slack_files":
    "Slack's file server is not answering right now, so I will try the download again shortly, on my own.",
  "status.waiting.slack_download_cut":
    "The download from Slack was cut off before the end, so I will try it again shortly, on my own.",
  "status.waiting.disk_full":
    "The disk I keep recordings on is full: I will try again on my own once an admin frees up space.",
  "status.waiting.note_service":
    "The Note Service is not answering right now; I will keep trying on my own.",

  // Why a job failed: one plain sentence per failure code.
  "failure.task_failed": "The Note Service could not process it: {detail}",
  "failure.task_failed.plain": "The Note Service could not process it.",
  "failure.auth":
    "The Note Service did not accept this app's API key; an admin must correct it in the bot's settings.",
  "failure.address":
    "The bot's Note Service address is wrong, so I could not send this: an admin must correct it (it must end with the provider's API path), then press Retry.",
  "failure.refused": "The Note Service refused the request: {detail}",
  "failure.refused.plain": "The Note Service refused the request.",
  "failure.task_lost": "The Note Service lost track of this task.",
  "failure.timeout": "It took longer than {detail} minutes, so I stopped waiting.",
  "failure.timeout.plain": "It took too long, so I stopped waiting.",
  "failure.unavailable": "The Note Service is not reachable right now.",
  "failure.bad_response": "The Note Service sent an answer I could not read.",
  "failure.invalid_input": "The Note Service cannot take this input: {detail}",
  "failure.invalid_input.plain": "The Note Service cannot take this input.",
  "failure.invalid_input.template": "The Word template is no longer available.",
  "failure.download_failed": "I could not download the recording from Slack.",
  "failure.download_refused":
    "Slack would not let me read the recording: invite me to the channel where it was shared, or share the file here again.",
  "failure.download_unavailable":
    "Slack's file server did not answer for a long time, so I stopped trying to download the recording.",
  "failure.download_cut":
    "The download from Slack kept being cut off before the end, so I stopped trying.",
  "failure.disk_full": "The disk I keep recordings on is full; an admin must free up space first.",
  "failure.not_audio": "{file} isn't an audio recording, so I can't make notes from it.",
  "failure.unsupported_container":
    "{file} is really {format}, a format the Note Service doesn't take: save it as one of {formats} and share it again.",
  "failure.unsupported_container.plain":
    "{file} is in a format the Note Service doesn't take: save it as one of {formats} and share it again.",
  "failure.slack_failed":
    "Slack did not accept a message or file from me. Check that I am still in this channel.",
  "failure.slack_unavailable": "Slack did not answer me for a long time, so I stopped trying.",
  "failure.install_unavailable":
    "Slack revoked my access to this workspace, so I stopped; once an admin installs me again, Retry.",
  "failure.no_speech": "I could not hear any speech in the recording.",
  "failure.no_sound": "{file} has no sound, so there is nothing to make notes from.",
  "failure.prepare_failed": "I could not read the sound of {file}; the file may be damaged.",
  "failure.too_long": "{file} is longer than {hours} hours, the longest recording I take.",
  "failure.too_long.plain": "{file} is longer than the longest recording I take.",
  "failure.frame_too_large":
    "{file} holds video frames far larger than any meeting's, so I won't read it.",
  "failure.prepare_too_slow":
    "{file} took far longer to read than a recording of its length should; the file may be damaged.",
  "failure.prepare_failed.no_ffmpeg":
    "I can't prepare {file} because FFmpeg is no longer installed where I run; your admin can add it back, then Retry.",
  "failure.prepared_too_large":
    "{file} is too long: even as compressed speech it is over 300 MB, the most the Note Service takes.",
  "failure.docx_expired": "The Word document's link expired before I could fetch it.",
  "failure.link_refused":
    "The Note Service sent a link to an address I may not open (only public https links are allowed), so I stopped.",
  "failure.dialog_too_large":
    "The transcript the Note Service returned is larger than {detail} MB, so I stopped reading it.",
  "failure.dialog_too_large.plain":
    "The transcript the Note Service returned is too large, so I stopped reading it.",
  "failure.docx_too_large":
    "The Word document the Note Service returned is larger than {detail} MB, so I did not post it.",
  "failure.docx_too_large.plain":
    "The Word document the Note Service returned is too large, so I did not post it.",
  "failure.internal": "Something went wrong on my side.",
} as const;

export const threadVi: { readonly [K in keyof typeof threadEn]: string } = {
  "status.queued": "Đang chuẩn bị phiên âm {file}…",
  "status.queued_waiting.one":
    "{file} đang chờ đến lượt: còn 1 bản ghi âm trước nó. Không có gì bị mất, nó sẽ tự bắt đầu.",
  "status.queued_waiting.other":
    "{file} đang chờ đến lượt: còn {count} bản ghi âm trước nó. Không có gì bị mất, nó sẽ tự bắt đầu.",
  "status.downloading": "Đang tải {file}…",
  "status.preparing": "Đang tách âm thanh khỏi {file} để Note Service dùng được…",
  "status.preparing_percent":
    "Đang tách âm thanh khỏi {file} để Note Service dùng được… {percent}%",
  "status.transcribing": "Đang phiên âm {file}…",
  "status.transcribing_percent": "Đang phiên âm {file}… {percent}%",
  "status.naming.one": "Đã nghe thấy 1 người nói. Hãy đặt tên để biên bản dùng tên thật.",
  "status.naming.other": "Đã nghe thấy {count} người nói. Hãy đặt tên để biên bản dùng tên thật.",
  "status.naming.more": "…và {count} người nữa",
  "status.writing": "Đang viết biên bản…",
  "status.delivering": "Đang đăng biên bản…",
  "status.done": "Biên bản đã sẵn sàng.",
  "status.canvas": ":memo: <{url}|Biên bản dạng canvas> — mọi người trong kênh đều đọc được.",
  "status.no_canvas.not_allowed":
    "Không có canvas: workspace này không cho ứng dụng tạo canvas, nên biên bản chỉ có trong luồng này.",
  "status.no_canvas.free_plan":
    "Không có canvas: gói của workspace này không cho ứng dụng tạo canvas, nên biên bản chỉ có trong luồng này.",
  "status.no_canvas.missing_scope":
    "Không có canvas: ứng dụng thiếu quyền canvases:write (quản trị viên có thể cài lại), nên biên bản chỉ có trong luồng này.",
  "status.no_canvas.too_large":
    "Không có canvas: biên bản dài hơn mức một canvas chứa được, nên chỉ có trong luồng này.",
  "status.no_canvas.refused":
    "Không có canvas: Slack không tạo hoặc không chia sẻ canvas cho biên bản này, nên biên bản chỉ có trong luồng này.",
  "status.canvas_dm": ":memo: <{url}|Biên bản dạng canvas> — đã chia sẻ với bạn.",
  "status.failed": "Không thể tạo biên bản từ {file}.",
  "status.canceled": "{user} đã hủy.",
  "status.elapsed": "Đã chạy {time}",
  "status.took": "Mất {time}",
  "status.retry_hint": "Thử lại sẽ tiếp tục từ chỗ đã dừng.",

  "status.lost":
    "Biên bản của bản ghi âm này đã bị mất khi bộ nhớ của bot bị đặt lại; hãy tải bản ghi âm lên lại.",

  "status.waiting.slack_files":
    "Máy chủ tệp của Slack hiện không phản hồi, nên tôi sẽ sớm tự thử tải lại.",
  "status.waiting.slack_download_cut":
    "Việc tải bản ghi âm từ Slack bị ngắt trước khi xong, nên tôi sẽ sớm tự thử tải lại.",
  "status.waiting.disk_full":
    "Ổ đĩa nơi tôi lưu bản ghi âm đã đầy: tôi sẽ tự thử lại khi quản trị viên giải phóng dung lượng.",
  "status.waiting.note_service": "Note Service hiện không phản hồi; tôi sẽ tự tiếp tục thử.",

  "failure.task_failed": "Note Service không xử lý được: {detail}",
  "failure.task_failed.plain": "Note Service không xử lý được.",
  "failure.auth":
    "Note Service không chấp nhận khóa API của ứng dụng; quản trị viên cần sửa khóa trong cấu hình của bot.",
  "failure.address":
    "Địa chỉ Note Service của bot không đúng nên tôi không gửi được: quản trị viên cần sửa địa chỉ này (phải kết thúc bằng đường dẫn API của nhà cung cấp), rồi bấm Thử lại.",
  "failure.refused": "Note Service từ chối yêu cầu: {detail}",
  "failure.refused.plain": "Note Service từ chối yêu cầu.",
  "failure.task_lost": "Note Service đã mất dấu tác vụ này.",
  "failure.timeout": "Quá {detail} phút vẫn chưa xong, nên tôi đã ngừng chờ.",
  "failure.timeout.plain": "Mất quá nhiều thời gian, nên tôi đã ngừng chờ.",
  "failure.unavailable": "Hiện không kết nối được với Note Service.",
  "failure.bad_response": "Note Service trả về một phản hồi mà tôi không đọc được.",
  "failure.invalid_input": "Note Service không nhận dữ liệu này: {detail}",
  "failure.invalid_input.plain": "Note Service không nhận dữ liệu này.",
  "failure.invalid_input.template": "Mẫu Word không còn nữa.",
  "failure.download_failed": "Tôi không tải được bản ghi âm từ Slack.",
  "failure.download_refused":
    "Slack không cho tôi đọc bản ghi âm: hãy mời tôi vào kênh nơi tệp được chia sẻ, hoặc chia sẻ lại tệp ở đây.",
  "failure.download_unavailable":
    "Máy chủ tệp của Slack không phản hồi trong thời gian dài, nên tôi đã ngừng thử tải bản ghi âm.",
  "failure.download_cut":
    "Việc tải bản ghi âm từ Slack liên tục bị ngắt trước khi xong, nên tôi đã ngừng thử.",
  "failure.disk_full":
    "Ổ đĩa nơi tôi lưu bản ghi âm đã đầy; quản trị viên cần giải phóng dung lượng trước.",
  "failure.not_audio":
    "{file} không phải là bản ghi âm, nên tôi không thể tạo biên bản từ tệp này.",
  "failure.unsupported_container":
    "{file} thực ra là {format}, một định dạng Note Service không nhận: hãy lưu lại thành một trong các định dạng {formats} rồi chia sẻ lại.",
  "failure.unsupported_container.plain":
    "{file} có định dạng mà Note Service không nhận: hãy lưu lại thành một trong các định dạng {formats} rồi chia sẻ lại.",
  "failure.slack_failed":
    "Slack không nhận tin nhắn hoặc tệp của tôi. Hãy kiểm tra xem tôi còn trong kênh này không.",
  "failure.slack_unavailable":
    "Slack không phản hồi tôi trong thời gian dài, nên tôi đã ngừng thử.",
  "failure.install_unavailable":
    "Slack đã thu hồi quyền truy cập của tôi vào không gian làm việc này, nên tôi đã dừng; khi quản trị viên cài đặt lại tôi, hãy bấm Thử lại.",
  "failure.no_speech": "Tôi không nghe thấy lời nói nào trong bản ghi âm.",
  "failure.no_sound": "{file} không có âm thanh, nên không có gì để tạo biên bản.",
  "failure.prepare_failed": "Tôi không đọc được âm thanh của {file}; tệp có thể bị hỏng.",
  "failure.too_long": "{file} dài hơn {hours} giờ, thời lượng tối đa của bản ghi mà tôi nhận.",
  "failure.too_long.plain": "{file} dài hơn thời lượng tối đa của bản ghi mà tôi nhận.",
  "failure.frame_too_large":
    "{file} chứa khung hình video lớn hơn nhiều so với bất kỳ cuộc họp nào, nên tôi sẽ không đọc nó.",
  "failure.prepare_too_slow":
    "Việc đọc {file} mất nhiều thời gian hơn hẳn so với độ dài của nó; tệp có thể bị hỏng.",
  "failure.prepare_failed.no_ffmpeg":
    "Tôi không thể chuẩn bị {file} vì nơi tôi chạy không còn FFmpeg; quản trị viên có thể cài lại, rồi bấm Thử lại.",
  "failure.prepared_too_large":
    "{file} quá dài: dù đã nén thành giọng nói, nó vẫn lớn hơn 300 MB, mức tối đa mà Note Service nhận.",
  "failure.docx_expired": "Liên kết tài liệu Word đã hết hạn trước khi tôi kịp tải về.",
  "failure.link_refused":
    "Note Service gửi một liên kết tới địa chỉ mà tôi không được phép mở (chỉ cho phép liên kết https công khai), nên tôi đã dừng lại.",
  "failure.dialog_too_large":
    "Bản chép lời mà Note Service trả về lớn hơn {detail} MB, nên tôi đã ngừng đọc.",
  "failure.dialog_too_large.plain":
    "Bản chép lời mà Note Service trả về quá lớn, nên tôi đã ngừng đọc.",
  "failure.docx_too_large":
    "Tài liệu Word mà Note Service trả về lớn hơn {detail} MB, nên tôi không đăng nó.",
  "failure.docx_too_large.plain":
    "Tài liệu Word mà Note Service trả về quá lớn, nên tôi không đăng nó.",
  "failure.internal": "Đã có lỗi ở phía tôi.",
};
