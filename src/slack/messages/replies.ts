/** Replies in threads and to commands, buttons, App Home and the lists of jobs. */
export const repliesEn = {
  // Uploads that do not become a job.
  "refusal.unsupported_format":
    "{file} is not a recording I can use. Upload one of these formats: {formats}.",
  "refusal.too_large": "{file} is over 300 MB, the largest recording the Note Service takes.",
  "refusal.too_large_to_prepare": "{file} is over 1 GB, the largest file Slack lets me take.",
  "refusal.needs_ffmpeg":
    "I can't convert {file} because FFmpeg is not installed where I run (your admin can add it), so upload one of these formats: {formats}.",
  "refusal.too_large_needs_ffmpeg":
    "{file} is over 300 MB, the most the Note Service takes, and I can't shrink it because FFmpeg is not installed where I run (your admin can add it).",
  "refusal.empty": "{file} is empty.",
  "refusal.unreadable":
    "I can't read {file}: Slack does not let me see it (shared from another organization, hidden by the workspace's file limit, or deleted). Download it and upload it here again, or send it with /meeting-notes.",
  "refusal.unnamed": "the file shared here",
  "refusal.more": "…and {count} more files.",
  "template.unreadable":
    "I could not read that Word template, so the notes use the current one. Upload a .docx of at most 10 MB.",
  "new_notes.parent": "Meeting notes for {file}, asked for by {user}.",
  "new_notes.file_unreadable":
    "I could not read that recording from Slack. Try uploading it again.",
  "new_notes.not_in_channel":
    "I am not in that channel. Invite me there, or choose another channel.",

  // Buttons.
  "button.cancel": "Cancel",
  "button.name_speakers": "Name speakers",
  "button.skip": "Skip",
  "button.retry": "Retry",
  "button.regenerate": "Regenerate",
  "button.open_thread": "Open thread",
  "confirm.cancel.title": "Cancel these notes?",
  "confirm.cancel.text": "The recording stops being processed. You can upload it again later.",
  "confirm.cancel.yes": "Cancel notes",
  "confirm.cancel.no": "Keep going",

  // Replies to /meeting-notes and its subcommands.
  "help.intro": "Meeting notes from your recordings, right here in Slack.",
  "help.upload.prepared":
    "Upload a recording to a channel I am in, or send it to me in a direct message, and I answer in its thread: any audio or video up to 1 GB (an hour-long Meet or Teams video, an iPhone .mov, an .mkv screen recording…).",
  "help.upload.as_is":
    "Upload a recording ({formats}, up to 300 MB) to a channel I am in, or send it to me in a direct message, and I answer in its thread.",
  "help.open": "open a form to make notes from a recording",
  "help.help": "show this help",
  "help.status": "list the meeting notes in this channel",
  "help.settings": "change this channel's defaults (language, context, template)",
  "help.cancel": "cancel the latest running job in this channel",
  "command.unknown": "I do not know the command “{command}”.",
  "command.not_found": "I cannot find that job any more. It may have expired.",
  "command.wrong_stage.names": "That job is no longer waiting for names.",
  "command.wrong_stage.cancel": "That job has already finished.",
  "command.wrong_stage.retry": "That job can no longer be retried.",
  "command.wrong_stage.regenerate": "Notes can be regenerated only once they are ready.",
  "command.cooldown": "These notes were regenerated a moment ago. Try again in {time}.",
  "command.cancel.done": "Canceled the notes for {file}.",
  "command.cancel.none": "There is no running job to cancel in this channel.",
  "channel_status.header": "Meeting notes in this channel",
  "channel_status.empty": "No meeting notes in this channel yet. Upload a recording to start.",
  "channel_status.more": "…and {count} older",

  // Settings changed, said in the channel.
  "settings.announced": "{user} changed the meeting notes settings of this channel: {changes}.",
  "settings.change.auto_on": "recordings uploaded here get notes automatically",
  "settings.change.auto_off": "recordings uploaded here no longer get notes automatically",
  "settings.change.canvas_on": "the notes go into a canvas",
  "settings.change.canvas_off": "no canvas for the notes",
  "settings.change.transcript_on": "the transcript is uploaded with the notes",
  "settings.change.transcript_off": "no transcript with the notes",
  "settings.change.mentions_on": "the people named in the notes are mentioned",
  "settings.change.mentions_off": "nobody is mentioned in the notes",
  "settings.change.language": "language {language}",
  "settings.change.language_auto": "language detected automatically",
  "settings.change.context_set": "new context",
  "settings.change.context_cleared": "no context",
  "settings.change.template_set": "a new Word template",
  "settings.change.template_cleared": "the Note Service's own Word template",

  // A job's stage in lists (App Home, `/meeting-notes status`), next to its file name.
  "stage.queued": "Queued",
  "stage.queued_waiting": "Waiting its turn ({count} ahead)",
  "stage.downloading": "Downloading…",
  "stage.preparing": "Preparing the audio…",
  "stage.preparing_percent": "Preparing the audio… {percent}%",
  "stage.transcribing": "Transcribing…",
  "stage.transcribing_percent": "Transcribing… {percent}%",
  "stage.naming": "Waiting for speaker names",
  "stage.writing": "Writing the notes…",
  "stage.delivering": "Posting the notes…",
  "stage.done": "Notes ready",
  "stage.failed": "Failed: {reason}",
  "stage.canceled": "Canceled",

  // App Home.
  "home.header": "Your meeting notes",
  "home.intro": "Recordings you uploaded or sent with /meeting-notes, newest first.",
  "home.empty":
    "No meeting notes yet. Upload a recording to a channel I am in, or type /meeting-notes in any channel.",
  "home.more": "Showing the latest {shown} of {count}.",
  "home.started": "Started {when}",
  "home.store_reset":
    ":warning: The bot's storage was reset {when}, and the notes of {files} were lost; upload them again.",

  // Times.
  "time.just_now": "just now",
  "time.minutes_ago.one": "1 minute ago",
  "time.minutes_ago.other": "{count} minutes ago",
  "time.hours_ago.one": "1 hour ago",
  "time.hours_ago.other": "{count} hours ago",
  "time.days_ago.one": "1 day ago",
  "time.days_ago.other": "{count} days ago",

  // The note, posted in the thread.
  "note.part": "Part {index} of {total}",
  "note.fallback": "Meeting notes",
  "note.fallback_part": "Meeting notes, part {index} of {total}",
} as const;

export const repliesVi: { readonly [K in keyof typeof repliesEn]: string } = {
  "refusal.unsupported_format":
    "{file} không phải bản ghi âm tôi dùng được. Hãy tải lên một trong các định dạng: {formats}.",
  "refusal.too_large": "{file} lớn hơn 300 MB, mức tối đa mà Note Service nhận.",
  "refusal.too_large_to_prepare": "{file} lớn hơn 1 GB, mức tối đa Slack cho phép tôi nhận.",
  "refusal.needs_ffmpeg":
    "Tôi không thể chuyển đổi {file} vì nơi tôi chạy chưa cài FFmpeg (quản trị viên có thể cài), nên hãy tải lên một trong các định dạng: {formats}.",
  "refusal.too_large_needs_ffmpeg":
    "{file} lớn hơn 300 MB, mức tối đa mà Note Service nhận, và tôi không thể thu nhỏ nó vì nơi tôi chạy chưa cài FFmpeg (quản trị viên có thể cài).",
  "refusal.empty": "{file} trống.",
  "refusal.unreadable":
    "Tôi không đọc được {file}: Slack không cho tôi xem tệp này (chia sẻ từ tổ chức khác, bị ẩn do giới hạn tệp của workspace, hoặc đã bị xóa). Hãy tải tệp về rồi tải lên lại tại đây, hoặc gửi qua /meeting-notes.",
  "refusal.unnamed": "tệp được chia sẻ ở đây",
  "refusal.more": "…và {count} tệp khác.",
  "template.unreadable":
    "Tôi không đọc được mẫu Word đó, nên biên bản dùng mẫu hiện tại. Hãy tải lên tệp .docx không quá 10 MB.",
  "new_notes.parent": "Biên bản cuộc họp cho {file}, do {user} yêu cầu.",
  "new_notes.file_unreadable": "Tôi không đọc được bản ghi âm đó từ Slack. Hãy thử tải lên lại.",
  "new_notes.not_in_channel": "Tôi chưa ở trong kênh đó. Hãy mời tôi vào, hoặc chọn kênh khác.",

  "button.cancel": "Hủy",
  "button.name_speakers": "Đặt tên người nói",
  "button.skip": "Bỏ qua",
  "button.retry": "Thử lại",
  "button.regenerate": "Tạo lại",
  "button.open_thread": "Mở luồng",
  "confirm.cancel.title": "Hủy biên bản này?",
  "confirm.cancel.text": "Bản ghi âm sẽ ngừng được xử lý. Bạn có thể tải lên lại sau.",
  "confirm.cancel.yes": "Hủy biên bản",
  "confirm.cancel.no": "Tiếp tục",

  "help.intro": "Biên bản cuộc họp từ bản ghi âm của bạn, ngay trong Slack.",
  "help.upload.prepared":
    "Tải một bản ghi âm lên kênh có tôi, hoặc gửi cho tôi trong tin nhắn trực tiếp, tôi sẽ trả lời trong luồng của nó: mọi tệp âm thanh hoặc video tối đa 1 GB (video Meet hay Teams dài một giờ, tệp .mov của iPhone, bản quay màn hình .mkv…).",
  "help.upload.as_is":
    "Tải một bản ghi âm ({formats}, tối đa 300 MB) lên kênh có tôi, hoặc gửi cho tôi trong tin nhắn trực tiếp, tôi sẽ trả lời trong luồng của nó.",
  "help.open": "mở biểu mẫu để tạo biên bản từ một bản ghi âm",
  "help.help": "xem hướng dẫn này",
  "help.status": "liệt kê các biên bản trong kênh này",
  "help.settings": "đổi thiết lập mặc định của kênh (ngôn ngữ, bối cảnh, mẫu)",
  "help.cancel": "hủy tác vụ đang chạy gần nhất trong kênh này",
  "command.unknown": "Tôi không biết lệnh “{command}”.",
  "command.not_found": "Tôi không tìm thấy tác vụ đó nữa. Có thể nó đã hết hạn.",
  "command.wrong_stage.names": "Tác vụ đó không còn chờ đặt tên nữa.",
  "command.wrong_stage.cancel": "Tác vụ đó đã kết thúc.",
  "command.wrong_stage.retry": "Tác vụ đó không thể thử lại nữa.",
  "command.wrong_stage.regenerate": "Chỉ có thể tạo lại khi biên bản đã sẵn sàng.",
  "command.cooldown": "Biên bản này vừa được tạo lại. Hãy thử lại sau {time}.",
  "command.cancel.done": "Đã hủy biên bản của {file}.",
  "command.cancel.none": "Không có tác vụ nào đang chạy để hủy trong kênh này.",
  "channel_status.header": "Biên bản cuộc họp trong kênh này",
  "channel_status.empty": "Kênh này chưa có biên bản nào. Hãy tải một bản ghi âm lên để bắt đầu.",
  "channel_status.more": "…và {count} biên bản cũ hơn",

  "settings.announced": "{user} đã đổi cài đặt biên bản của kênh này: {changes}.",
  "settings.change.auto_on": "bản ghi âm tải lên đây được tự động làm biên bản",
  "settings.change.auto_off": "bản ghi âm tải lên đây không còn được tự động làm biên bản",
  "settings.change.canvas_on": "biên bản được đưa vào một canvas",
  "settings.change.canvas_off": "không tạo canvas cho biên bản",
  "settings.change.transcript_on": "bản ghi lời nói được tải lên cùng biên bản",
  "settings.change.transcript_off": "không tải lên bản ghi lời nói",
  "settings.change.mentions_on": "những người được nêu tên trong biên bản sẽ được nhắc đến",
  "settings.change.mentions_off": "không nhắc đến ai trong biên bản",
  "settings.change.language": "ngôn ngữ {language}",
  "settings.change.language_auto": "tự nhận diện ngôn ngữ",
  "settings.change.context_set": "bối cảnh mới",
  "settings.change.context_cleared": "không có bối cảnh",
  "settings.change.template_set": "mẫu Word mới",
  "settings.change.template_cleared": "mẫu Word riêng của Note Service",

  "stage.queued": "Đang chờ",
  "stage.queued_waiting": "Đang chờ đến lượt (còn {count} trước)",
  "stage.downloading": "Đang tải…",
  "stage.preparing": "Đang chuẩn bị âm thanh…",
  "stage.preparing_percent": "Đang chuẩn bị âm thanh… {percent}%",
  "stage.transcribing": "Đang phiên âm…",
  "stage.transcribing_percent": "Đang phiên âm… {percent}%",
  "stage.naming": "Đang chờ đặt tên người nói",
  "stage.writing": "Đang viết biên bản…",
  "stage.delivering": "Đang đăng biên bản…",
  "stage.done": "Biên bản đã sẵn sàng",
  "stage.failed": "Thất bại: {reason}",
  "stage.canceled": "Đã hủy",

  "home.header": "Biên bản cuộc họp của bạn",
  "home.intro": "Các bản ghi âm bạn đã tải lên hoặc gửi qua /meeting-notes, mới nhất trước.",
  "home.empty":
    "Chưa có biên bản nào. Hãy tải một bản ghi âm lên kênh có tôi, hoặc gõ /meeting-notes trong bất kỳ kênh nào.",
  "home.more": "Đang hiển thị {shown} biên bản mới nhất trong số {count}.",
  "home.started": "Bắt đầu {when}",
  "home.store_reset":
    ":warning: Bộ nhớ của bot đã bị đặt lại {when}, và biên bản của {files} đã bị mất; hãy tải chúng lên lại.",

  "time.just_now": "vừa xong",
  "time.minutes_ago.one": "1 phút trước",
  "time.minutes_ago.other": "{count} phút trước",
  "time.hours_ago.one": "1 giờ trước",
  "time.hours_ago.other": "{count} giờ trước",
  "time.days_ago.one": "1 ngày trước",
  "time.days_ago.other": "{count} ngày trước",

  "note.part": "Phần {index}/{total}",
  "note.fallback": "Biên bản cuộc họp",
  "note.fallback_part": "Biên bản cuộc họp, phần {index}/{total}",
};
